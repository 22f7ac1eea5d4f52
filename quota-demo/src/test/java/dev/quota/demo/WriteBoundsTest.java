package dev.quota.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.http2.server.HTTP2CServerConnectionFactory;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The write bounds on a real Jetty over HTTP/1.1 and HTTP/2, with the address's bound already full (0 waiting
 * writes allowed): a response small enough to be written behind is answered, since it counts
 * against its connection only; a larger one is refused at once and its connection closed, so the
 * client learns it at once rather than waiting for an answer that never comes. Over HTTP/2 such a
 * response's stream is reset at once, whether or not the handler ever completes.
 */
class WriteBoundsTest {

    private static final int SMALL = 2_000;
    private static final int LARGE = 64 * 1024;

    private final Server server = new Server();

    @AfterEach
    void stop() throws Exception {
        server.stop();
    }

    /** What the handler's last write came to: "written", or the failure's class. */
    private final CompletableFuture<String> lastWrite = new CompletableFuture<>();

    private int start(int maxPerAddress) throws Exception {
        return start(maxPerAddress, Duration.ofSeconds(10));
    }

    private int start(int maxPerAddress, Duration writeTimeout) throws Exception {
        HttpConfiguration http = new HttpConfiguration();
        ServerConnector connector = new ServerConnector(server, new HttpConnectionFactory(http),
                new HTTP2CServerConnectionFactory(http));
        connector.setHost("127.0.0.1");
        server.addConnector(connector);
        Handler body = new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                int size = request.getHttpURI().getPath().equals("/large") ? LARGE : SMALL;
                response.setStatus(200);
                response.getHeaders().put("Content-Length", size);
                // as Jersey's Jetty container: a write that fails on a committed response never
                // completes the handler's callback (it cannot write an error over what was sent)
                response.write(true, ByteBuffer.wrap(new byte[size]), Callback.from(() -> {
                    lastWrite.complete("written");
                    callback.succeeded();
                }, failure -> {
                    lastWrite.complete(failure.getClass().getSimpleName());
                    if (!response.isCommitted()) {
                        callback.failed(failure);
                    }
                }));
                return true;
            }
        };
        server.setHandler(new WriteBounds(body, writeTimeout, 8, maxPerAddress));
        server.start();
        return connector.getLocalPort();
    }

    /** One HTTP/1.1 request: the status line and the body's length, "closed" with what came, or "no answer". */
    private static String get(int port, String path) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5_000);
            socket.setSoTimeout(5_000);
            socket.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: localhost\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            byte[] chunk = new byte[8192];
            String head = null;
            while (true) {
                int n;
                try {
                    n = in.read(chunk);
                } catch (SocketTimeoutException e) {
                    return head != null && got.size() - head.length() - 4 == expected(head) ? answer(head, got)
                            : "no answer in 5 s";
                } catch (IOException e) {
                    return "closed after " + got.size() + " bytes";
                }
                if (n < 0) {
                    return "closed after " + got.size() + " bytes";
                }
                got.write(chunk, 0, n);
                String text = got.toString(StandardCharsets.ISO_8859_1);
                int end = text.indexOf("\r\n\r\n");
                if (head == null && end >= 0) {
                    head = text.substring(0, end);
                }
                if (head != null && got.size() - head.length() - 4 == expected(head)) {
                    return answer(head, got);
                }
            }
        }
    }

    private static long expected(String head) {
        for (String line : head.split("\r\n")) {
            if (line.toLowerCase().startsWith("content-length:")) {
                return Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
            }
        }
        return -1;
    }

    private static String answer(String head, ByteArrayOutputStream got) {
        return head.substring(0, head.indexOf("\r\n")) + ", " + (got.size() - head.length() - 4) + " bytes";
    }

    @Test
    void addressBoundFull_smallResponseOverHttp1_isAnswered() throws Exception {
        int port = start(0);

        assertThat(get(port, "/small")).isEqualTo("HTTP/1.1 200 OK, " + SMALL + " bytes");
    }

    @Test
    void addressBoundFull_largerResponseOverHttp1_closesItsConnectionAtOnce() throws Exception {
        int port = start(0);

        assertThat(get(port, "/large")).isEqualTo("closed after 0 bytes");
    }

    @Test
    void addressBoundFull_responseOverHttp2_resetsItsStreamAtOnce_evenWhenTheHandlerNeverCompletes() throws Exception {
        int port = start(0);

        try (RawHttp2 client = RawHttp2.connect(URI.create("http://127.0.0.1:" + port + "/"),
                InetAddress.getLoopbackAddress())) {
            assertThatThrownBy(() -> client.get("127.0.0.1:" + port, "/small"))
                    .isInstanceOf(IOException.class).hasMessageStartingWith("RST_STREAM");
        }
    }

    @Test
    void largerResponseToAClientThatTakesNothing_failsItsWriterAtTheWriteTimeout_andResetsItsStream() throws Exception {
        int port = start(16, Duration.ofMillis(200));

        try (RawHttp2 client = RawHttp2.connect(URI.create("http://127.0.0.1:" + port + "/"),
                InetAddress.getLoopbackAddress(), 0)) { // a window of 0: the server may send no byte of a body
            assertThatThrownBy(() -> client.get("127.0.0.1:" + port, "/large"))
                    .isInstanceOf(IOException.class).hasMessageStartingWith("RST_STREAM");
        }
        // the worker that wrote is free: its write failed rather than waiting for the client
        assertThat(lastWrite.get(10, TimeUnit.SECONDS)).isEqualTo("TimeoutException");
    }

    @Test
    void addressBoundNotFull_largerResponseOverHttp1_isAnswered() throws Exception {
        int port = start(16);

        assertThat(get(port, "/large")).isEqualTo("HTTP/1.1 200 OK, " + LARGE + " bytes");
    }
}
