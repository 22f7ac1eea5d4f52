package dev.quota.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Every error the API answers is problem+json: never an HTML page, never a stack trace. */
class ErrorResponsesTest {

    static final String KEY = "X-API-Key";
    static final String FREE = "demo-free-key";

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

    @Test
    void unknownKey_gets401Problem() {
        HttpResponse<String> response = Http.get(api.resolve("accounts/ACC-1001"), KEY, "not-a-demo-key");

        assertThat(response.statusCode()).isEqualTo(401);
        assertThat(Http.header(response, "Content-Type")).startsWith("application/problem+json");
        assertThat(Http.header(response, "WWW-Authenticate")).isEqualTo("ApiKey header=\"X-API-Key\"");
        assertThat(Http.json(response).get("detail").asText()).doesNotContain("not-a-demo-key");
    }

    @Test
    void transfer_withTextContentType_gets415Problem() {
        HttpResponse<String> response = Http.send(Http.request(api.resolve("transfers"), KEY, FREE)
                .header("Content-Type", "text/plain")
                .POST(HttpRequest.BodyPublishers.ofString("from=ACC-1001")));

        assertThat(response.statusCode()).isEqualTo(415);
        assertThat(Http.header(response, "Content-Type")).startsWith("application/problem+json");
        assertThat(Http.json(response).get("title").asText()).isEqualTo("Unsupported Media Type");
    }

    @Test
    void unknownAccount_gets403LikeAnotherCustomersAccount_soIdsCannotBeProbed() {
        HttpResponse<String> response = Http.get(api.resolve("accounts/ACC-9999"), KEY, FREE);

        assertThat(response.statusCode()).isEqualTo(403);
        assertThat(Http.header(response, "Content-Type")).startsWith("application/problem+json");
        assertThat(Http.json(response).get("instance").asText()).isEqualTo("/api/v1/accounts/ACC-9999");
    }

    @Test
    void unknownPath_gets404ProblemJson() {
        HttpResponse<String> response = Http.get(api.resolve("no/such/thing"), KEY, FREE);

        assertThat(response.statusCode()).isEqualTo(404);
        assertThat(Http.header(response, "Content-Type")).startsWith("application/problem+json");
        JsonNode problem = Http.json(response);
        assertThat(problem.get("type").asText()).isEqualTo("about:blank");
        assertThat(problem.get("title").asText()).isEqualTo("Not Found");
        assertThat(problem.get("status").asInt()).isEqualTo(404);
    }

    @Test
    void wrongMethod_gets405ProblemWithAllow() {
        HttpResponse<String> response = Http.send(Http.request(api.resolve("accounts/ACC-1001"), KEY, FREE).DELETE());

        assertThat(response.statusCode()).isEqualTo(405);
        assertThat(Http.header(response, "Allow")).contains("GET");
        assertThat(Http.header(response, "Content-Type")).startsWith("application/problem+json");
        assertThat(Http.json(response).get("detail").asText()).contains("allowed: GET");
    }

    @Test
    void malformedPercentEncoding_gets400ProblemNotAnHtmlPage() throws IOException {
        String response = raw("GET /api/v1/accounts/%zz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");

        assertThat(response).startsWith("HTTP/1.1 400 ");
        assertThat(response).contains("Content-Type: application/problem+json");
        assertThat(response).doesNotContain("<html", "Exception", "at org.");
    }

    /** Sends bytes no HTTP client library would send and returns the whole answer. */
    static String raw(String request) throws IOException {
        try (Socket socket = new Socket(api.getHost(), api.getPort())) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(request.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = socket.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }
}
