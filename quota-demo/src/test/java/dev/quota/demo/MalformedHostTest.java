package dev.quota.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Every malformed {@code Host} header is a 400 problem, never a 500, over raw sockets. */
class MalformedHostTest {

    static RunningDemo demo;

    @BeforeAll
    static void start() {
        demo = RunningDemo.start();
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

    static List<String> malformed() {
        return List.of("::1:32080", "[::1", "[::1]x", "[zz::1]", "[fe80::1%25eth0]", "a b", "host:99999", "host:-1",
                "host:+80", "host:8o", "host:80:80", "%", "%41", "", " ", "x".repeat(300),
                "a".repeat(64) + ".example", "h\u00e9llo.example", "caf\u00c3\u00a9.example", "a!b", "a_b",
                "-a.example", "a-.example", "a..b", ".example", "1.2.3.999", "010.1.1.1", "1.2.3", "user@host",
                "host/path", "host?x", "host#x", "\"host\"");
    }

    /** What broke on Grizzly: {@code Host: ::1:32080} reached Jersey, whose container answered 500. */
    @Test
    void ipv6WithoutBrackets_gets400ProblemNot500() throws IOException {
        String response = get("::1:32080");

        assertThat(response).startsWith("HTTP/1.1 400 ");
        assertThat(response).contains("Content-Type: application/problem+json");
        assertThat(body(response).get("detail").asText()).startsWith("The Host header is malformed");
    }

    @ParameterizedTest
    @MethodSource("malformed")
    void malformedHost_gets400ProblemJson(String host) throws IOException {
        String response = get(host);

        assertThat(response).as("Host: %s", host).startsWith("HTTP/1.1 400 ");
        assertThat(response).contains("Content-Type: application/problem+json").doesNotContain("<html", "Exception");
        JsonNode problem = body(response);
        assertThat(problem.get("type").asText()).isEqualTo("about:blank");
        assertThat(problem.get("title").asText()).isEqualTo("Bad Request");
        assertThat(problem.get("status").asInt()).isEqualTo(400);
        assertThat(problem.get("detail").asText()).isEqualTo("The Host header is malformed: send a host name, an IPv4"
                + " address or a bracketed IPv6 address, optionally with a port up to 65535.");
    }

    @ParameterizedTest
    @ValueSource(strings = {"localhost", "localhost:8080", "LOCALHOST:1", "api.example.com", "api.example.com.",
        "127.0.0.1:65535", "[::1]", "[::1]:32080", "[2001:DB8::1]:443", "[::ffff:192.0.2.1]",
        "xn--caf-dma.example", "a1-b2.example"})
    void wellFormedHost_reachesTheApi(String host) throws IOException {
        String response = get(host);

        assertThat(response).as("Host: %s", host).startsWith("HTTP/1.1 200 ");
    }

    /** RFC 3986 allows an empty port; Jetty's parser does not, and its 400 is the same problem. */
    @Test
    void emptyPort_gets400ProblemFromJettysParser_not500() throws IOException {
        String response = get("localhost:");

        assertThat(response).startsWith("HTTP/1.1 400 ").contains("Content-Type: application/problem+json");
        assertThat(body(response).get("detail").asText()).startsWith("The Host header is malformed");
    }

    @Test
    void twoHostHeaders_get400() throws IOException {
        String response = raw("GET /api/v1/accounts/ACC-1001 HTTP/1.1\r\nHost: localhost\r\nHost: example.com\r\n"
                + "X-API-Key: demo-free-key\r\nConnection: close\r\n\r\n");

        assertThat(response).startsWith("HTTP/1.1 400 ");
        assertThat(body(response).get("detail").asText()).isEqualTo("The request has 2 Host headers; send exactly one.");
    }

    @Test
    void http10WithoutHost_reachesTheApi() throws IOException {
        String response = raw("GET /api/v1/accounts/ACC-1001 HTTP/1.0\r\nX-API-Key: demo-free-key\r\n\r\n");

        assertThat(response).startsWith("HTTP/1.1 200 ");
    }

    private static String get(String host) throws IOException {
        return raw("GET /api/v1/accounts/ACC-1001 HTTP/1.1\r\nHost: " + host + "\r\nX-API-Key: demo-free-key\r\n"
                + "Connection: close\r\n\r\n");
    }

    /** Sends the bytes as ISO-8859-1 (a non-ASCII Host arrives as the bytes a client would send). */
    private static String raw(String request) throws IOException {
        try (Socket socket = new Socket(demo.api.getHost(), demo.api.getPort())) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(request.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = socket.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }

    private static JsonNode body(String response) throws IOException {
        return new ObjectMapper().readTree(response.substring(response.indexOf("\r\n\r\n") + 4));
    }
}
