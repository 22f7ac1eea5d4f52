package dev.quota.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * HTTP/1.1 requests offering an upgrade the server does not take are answered as if they offered
 * none ({@link CleartextHttp2}), over raw sockets. What broke on Grizzly: it read the body of a request
 * with an unaccepted offer as the new protocol's bytes, so the body never ended and the answer
 * lost its {@code Content-Type}; and an h2c offer with a body that was accepted could lose the
 * client's HTTP/2 preface, after which the connection hung.
 */
class UpgradeOfferTest {

    static final String TRANSFER =
            "{\"from\":\"ACC-1001\",\"to\":\"ACC-2001\",\"amount\":\"10.00\",\"currency\":\"EUR\"}";
    /** What Java's {@code HttpClient} offers (its HTTP2-Settings: its own, base64url). */
    static final String H2C_OFFER = "Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\n"
            + "HTTP2-Settings: AAEAAEAAAAIAAAAAAAMAAAAAAAQBAAAAAAUAAEAAAAYABgAA\r\n";

    static RunningDemo demo;
    static URI api;

    @BeforeAll
    static void start() {
        demo = RunningDemo.start();
        api = demo.api;
    }

    @AfterAll
    static void stop() {
        if (demo != null) {
            demo.close();
        }
    }

    @BeforeEach
    void nextDay() {
        demo.nextDay();
    }

    /** A request without a body keeps its h2c offer: the add-on takes it. */
    @Test
    void h2cOfferWithoutBody_isAccepted() throws IOException {
        String response = exchange(get(H2C_OFFER));

        assertThat(response).startsWith("HTTP/1.1 101 Switching Protocols\r\n");
    }

    @Test
    void h2cOfferWithBody_isAnsweredOverHttp11() throws IOException {
        String response = exchange(post(H2C_OFFER, TRANSFER));

        assertThat(response).startsWith("HTTP/1.1 201 ");
        assertThat(header(response, "Content-Type")).isEqualTo("application/json");
        assertThat(body(response)).contains("\"amount\":\"10.00\"");
    }

    /** Another client's settings (lower-case tokens): taken without a body, ignored with one. */
    @Test
    void h2cOfferWithOtherSettings_isAcceptedWithoutBody_andAnsweredOverHttp11WithOne() throws IOException {
        String offer = "Connection: upgrade, http2-settings\r\nUpgrade: h2c\r\n"
                + "HTTP2-Settings: AAMAAABkAAQCAAAAAAIAAAAA\r\n";

        assertThat(exchange(get(offer))).startsWith("HTTP/1.1 101 Switching Protocols\r\n");
        String transfer = exchange(post(offer, TRANSFER));
        assertThat(transfer).startsWith("HTTP/1.1 201 ");
        assertThat(header(transfer, "Content-Type")).isEqualTo("application/json");
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "Connection: Upgrade\r\nUpgrade: websocket\r\n",
        "Connection: Upgrade\r\nUpgrade: h2c\r\n"}) // no HTTP2-Settings: turned down
    void offerNobodyTakes_isIgnored(String offer) throws IOException {
        String account = exchange(get(offer));
        String transfer = exchange(post(offer, TRANSFER));

        assertThat(account).startsWith("HTTP/1.1 200 ");
        assertThat(header(account, "Content-Type")).isEqualTo("application/json");
        assertThat(transfer).startsWith("HTTP/1.1 201 ");
        assertThat(header(transfer, "Content-Type")).isEqualTo("application/json");
    }

    private static String get(String offer) {
        return "GET /api/v1/accounts/ACC-1001 HTTP/1.1\r\nHost: " + api.getAuthority() + "\r\n" + offer
                + "X-API-Key: demo-free-key\r\n\r\n";
    }

    private static String post(String offer, String body) {
        return "POST /api/v1/transfers HTTP/1.1\r\nHost: " + api.getAuthority() + "\r\n" + offer
                + "X-API-Key: demo-free-key\r\nContent-Type: application/json\r\nContent-Length: "
                + body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + body;
    }

    /**
     * Sends the request in one write and reads one answer: the head, and as many body bytes as its
     * {@code Content-Length} says (none for a 101, after which HTTP/2 frames would follow).
     */
    private static String exchange(String request) throws IOException {
        try (Socket socket = new Socket(api.getHost(), api.getPort())) {
            socket.setSoTimeout((int) Http.TIMEOUT.toMillis());
            socket.getOutputStream().write(request.getBytes(StandardCharsets.UTF_8));
            socket.getOutputStream().flush();
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream head = new ByteArrayOutputStream();
            while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
                int b = in.read();
                if (b < 0) {
                    throw new IOException("the connection ended inside the head: " + head);
                }
                head.write(b);
            }
            String response = head.toString(StandardCharsets.ISO_8859_1);
            String length = header(response, "Content-Length");
            if (header(response, "Transfer-Encoding").equalsIgnoreCase("chunked")) {
                return response + chunked(in);
            }
            byte[] body = length.isEmpty() ? new byte[0] : in.readNBytes(Integer.parseInt(length));
            return response + new String(body, StandardCharsets.UTF_8);
        }
    }

    /** A chunked body up to its last chunk (RFC 9112, section 7.1), without trailers. */
    private static String chunked(InputStream in) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        while (true) {
            String sizeLine = line(in);
            int size = Integer.parseInt(sizeLine.split(";")[0].trim(), 16);
            if (size == 0) {
                line(in);
                return body.toString(StandardCharsets.UTF_8);
            }
            body.writeBytes(in.readNBytes(size));
            line(in);
        }
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        for (int b = in.read(); b >= 0 && b != '\n'; b = in.read()) {
            line.write(b);
        }
        return line.toString(StandardCharsets.ISO_8859_1).trim();
    }

    /** The value of the first header named {@code name} in the head, or "" when absent. */
    private static String header(String response, String name) {
        String head = response.substring(0, response.indexOf("\r\n\r\n") + 2);
        for (String line : head.split("\r\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && line.substring(0, colon).toLowerCase(Locale.ROOT).equals(name.toLowerCase(Locale.ROOT))) {
                return line.substring(colon + 1).trim();
            }
        }
        return "";
    }

    private static String body(String response) {
        return response.substring(response.indexOf("\r\n\r\n") + 4);
    }
}
