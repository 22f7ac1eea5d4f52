package dev.quota.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The write bounds on a real Jetty over HTTP/1.1, with the address's bound already full (0 waiting
 * writes allowed): a response small enough to be written behind is answered, since it counts
 * against its connection only; a larger one is refused at once and its connection closed, so the
 * client learns it at once rather than waiting for an answer that never comes.
 */
class WriteBoundsTest {

    private static final int SMALL = 2_000;
    private static final int LARGE = 64 * 1024;

    private final Server server = new Server();

    @AfterEach
    void stop() throws Exception {
        server.stop();
    }

    private int start(int maxPerAddress) throws Exception {
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        server.addConnector(connector);
        Handler body = new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                int size = request.getHttpURI().getPath().equals("/large") ? LARGE : SMALL;
                response.setStatus(200);
                response.getHeaders().put("Content-Length", size);
                response.write(true, ByteBuffer.wrap(new byte[size]), callback);
                return true;
            }
        };
        server.setHandler(new WriteBounds(body, Duration.ofSeconds(10), 8, maxPerAddress));
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
    void addressBoundNotFull_largerResponseOverHttp1_isAnswered() throws Exception {
        int port = start(16);

        assertThat(get(port, "/large")).isEqualTo("HTTP/1.1 200 OK, " + LARGE + " bytes");
    }
}
