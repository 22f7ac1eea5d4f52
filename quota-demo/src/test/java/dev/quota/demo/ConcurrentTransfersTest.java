package dev.quota.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.quota.testkit.Await;
import java.io.IOException;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * At most five transfers of one customer run at once ({@code concurrency: 5} on rule
 * {@code transfers}): five transfers whose bodies are still on their way are running; the sixth is
 * refused 429 {@code too-many-in-flight}, and starts once one of the five has been answered.
 */
class ConcurrentTransfersTest {

    /** A transfer body of exactly {@link SlowTransfer#LENGTH} bytes (padded with spaces, which JSON allows). */
    private static final String BODY = padded(
            "{\"from\":\"ACC-1001\",\"to\":\"ACC-2001\",\"amount\":\"1.00\",\"currency\":\"EUR\"}");

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

    private static String padded(String json) {
        return json + " ".repeat(SlowTransfer.LENGTH - json.length());
    }

    /** Sends the rest of the body of a {@link SlowTransfer}; the status line of the answer. */
    private static String finish(Socket socket) throws IOException {
        socket.getOutputStream().write(BODY.substring(1).getBytes(StandardCharsets.ISO_8859_1));
        socket.getOutputStream().flush();
        return SlowTransfer.statusLine(socket);
    }

    private static long freeBurstLeft() {
        return demo.app.services().get(0).admin().standing(AttacksTest.ACME).stream()
                .filter(s -> s.policy().equals("free-burst")).findFirst().orElseThrow().remaining();
    }

    @Test
    void sixthConcurrentTransfer_is429TooManyInFlight_whileFiveRun_andPassesOnceOneIsAnswered() throws IOException {
        long before = freeBurstLeft();
        List<Socket> running = new ArrayList<>();
        try {
            for (int i = 0; i < 5; i++) {
                running.add(SlowTransfer.start(demo.api.getPort(), "127.0.0.1", "X-API-Key", AttacksTest.FREE));
            }
            // each took its plan token and its lease on arrival, before its body
            Await.until(Duration.ofSeconds(10), () -> freeBurstLeft() == before - 5, () -> "five transfers running");

            HttpResponse<String> sixth = Http.postJson(demo.api.resolve("transfers"), BODY, "X-API-Key",
                    AttacksTest.FREE);

            assertThat(sixth.statusCode()).isEqualTo(429);
            assertThat(Http.header(sixth, "Quota-In-Flight-Limit")).isEqualTo("5");
            assertThat(sixth.headers().firstValue("Retry-After")).isEmpty();
            JsonNode problem = Http.json(sixth);
            assertThat(problem.get("type").asText()).isEqualTo("urn:quota:problem:too-many-in-flight");
            assertThat(problem.get("limit").asText()).isEqualTo("transfers-in-flight");
            assertThat(problem.get("inFlightLimit").asLong()).isEqualTo(5);

            assertThat(finish(running.get(0))).isEqualTo("HTTP/1.1 201 Created");
            // the lease goes back after the response's last bytes, so the client may read them first
            Await.until(Duration.ofSeconds(10),
                    () -> Http.postJson(demo.api.resolve("transfers"), BODY, "X-API-Key", AttacksTest.FREE)
                            .statusCode() == 201,
                    () -> "one of the five was answered: its lease is back");
            for (Socket socket : running.subList(1, 5)) {
                assertThat(finish(socket)).isEqualTo("HTTP/1.1 201 Created");
            }
        } finally {
            for (Socket socket : running) {
                socket.close();
            }
        }
    }
}
