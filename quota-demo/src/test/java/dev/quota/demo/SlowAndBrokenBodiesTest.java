package dev.quota.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.testkit.Await;
import dev.quota.testkit.RawHttp;
import dev.quota.testkit.StderrCapture;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Bodies that come slowly or not at all: a caller whose quota is spent is refused before its body
 * is read, so holding connections open costs the server nothing; a body cut short is a 400 and
 * one sampled log line, never a stack trace per request. Each client is its own loopback address.
 */
// the client-error log is sampled (20 lines at once, then 20 a second, per JVM): the test that
// waits for one line runs first, the flood of 500 truncated bodies last
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SlowAndBrokenBodiesTest {

    private static final String SPENT = "127.0.0.21";
    private static final String LEGITIMATE = "127.0.0.22";
    private static final String TRUNCATING = "127.0.0.23";
    /** More than the demo's 64 HTTP workers. */
    private static final int SLOW_BODIES = 70;

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

    /** Headers and the first byte of a 100-byte transfer body; the rest never comes. */
    private static Socket startSlowTransfer(String from, String... headers) throws IOException {
        return SlowTransfer.start(demo.api.getPort(), from, headers);
    }

    private static String statusLine(Socket socket) throws IOException {
        return SlowTransfer.statusLine(socket);
    }

    @Test
    void seventySlowBodiesFromASpentAddress_areRefusedUnread_andTheApiKeepsAnswering_regressionForWorkerExhaustion()
            throws IOException {
        for (int i = 0; i < 10; i++) {
            assertThat(RawHttp.get(SPENT, demo.api.getPort(), "/api/v1/rates").status()).isEqualTo(200);
        }
        assertThat(RawHttp.get(SPENT, demo.api.getPort(), "/api/v1/rates").status()).as("spent").isEqualTo(429);
        List<Socket> slow = new ArrayList<>();
        try (LegitimateCaller legitimate = LegitimateCaller.start(LEGITIMATE, demo.api.getPort())) {
            legitimate.awaitMore(1);
            for (int i = 0; i < SLOW_BODIES; i++) {
                slow.add(startSlowTransfer(SPENT));
            }

            List<String> answers = new ArrayList<>();
            for (Socket socket : slow) {
                answers.add(statusLine(socket));
            }
            // the slow connections stay open for ten more of the other customer's requests
            legitimate.awaitMore(10);
            RawHttp.Answer during = RawHttp.get(LEGITIMATE, demo.api.getPort(), "/api/v1/accounts/ACC-4001",
                    "X-API-Key", AttacksTest.ENTERPRISE);

            assertThat(answers).hasSize(SLOW_BODIES).allMatch(line -> line.equals("HTTP/1.1 429 Too Many Requests"));
            assertThat(during.status()).isEqualTo(200);
            assertThat(legitimate.worstMillis()).as("the other customer's worst latency in ms, asking every 100 ms")
                    .isLessThan(1_000);
            assertThat(legitimate.statuses()).isNotEmpty().containsOnly(200);
        } finally {
            for (Socket socket : slow) {
                socket.close();
            }
        }
    }

    @Test
    void slowBodyOfACallerWithQuota_costsItsRequestTokenOnArrival() throws IOException {
        long before = freeBurstLeft();
        try (Socket socket = startSlowTransfer(LEGITIMATE, "X-API-Key", AttacksTest.FREE)) {
            // charged by the request filter while the body is still on its way
            Await.until(Duration.ofSeconds(10), () -> freeBurstLeft() == before - 1,
                    () -> "the request token taken before the body arrives");
            assertThat(freeBurstLeft()).isEqualTo(before - 1);
        }
    }

    @Test
    void bodyThatStalls_is408BodyTimeoutAfterTheIdleTimeout_never500_regressionForWorkerExhaustion()
            throws IOException {
        long before = freeBurstLeft();
        String answer;
        try (Socket socket = startSlowTransfer(LEGITIMATE, "X-API-Key", AttacksTest.FREE)) {
            Await.until(Duration.ofSeconds(10), () -> freeBurstLeft() == before - 1, () -> "the request charged");
            // then nothing more: the server's idle timeout (10 s) ends the read, not the client
            answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
        }

        assertThat(answer).startsWith("HTTP/1.1 408 Request Timeout")
                .contains("\"type\":\"urn:quota:problem:body-timeout\"");
    }

    private static long freeBurstLeft() {
        return demo.app.services().get(0).admin().standing(AttacksTest.ACME).stream()
                .filter(s -> s.policy().equals("free-burst")).findFirst().orElseThrow().remaining();
    }

    @Test
    @Order(1)
    void truncatedBody_isLoggedOneLineWithoutStackTrace_neverA500_regressionForLogFlood() throws IOException {
        String answer;
        String log;
        try (StderrCapture stderr = new StderrCapture()) {
            long before = freeBurstLeft();
            try (Socket socket = startSlowTransfer(TRUNCATING, "X-API-Key", AttacksTest.FREE)) {
                // the server waits for the body only once the request is charged: cut it short then
                Await.until(Duration.ofSeconds(10), () -> freeBurstLeft() == before - 1, () -> "the request charged");
                socket.shutdownOutput();
                answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
            }
            // the server may write its line after the connection is gone; when Jetty takes in the
            // half-close before the body is read, the read ends at the idle timeout (10 s) instead
            Await.until(Duration.ofSeconds(20), () -> stderr.text().contains("could not be read"),
                    () -> "the log line of the truncated body");
            log = stderr.text();
        }

        // the server may close a connection whose client closed its side before the 400 gets out
        assertThat(answer).satisfiesAnyOf(a -> assertThat(a).isEmpty(),
                a -> assertThat(a).startsWith("HTTP/1.1 400 Bad Request"));
        assertThat(log).containsPattern("the body of a request to /api/v1/transfers could not be read"
                + " \\((\\w*EofException: Early EOF|TimeoutException: Idle timeout expired[^)]*)\\); answering 4xx")
                .doesNotContain("\tat ").doesNotContain("ERROR");
    }

    @Test
    void brokenChunkedBody_is400UnreadableBody_onTheOpenConnection() throws IOException {
        String answer;
        try (Socket socket = new Socket()) {
            socket.setSoTimeout(20_000);
            socket.bind(new InetSocketAddress(InetAddress.getByName(TRUNCATING), 0));
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), demo.api.getPort()), 5_000);
            socket.getOutputStream().write(("POST /api/v1/transfers HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nX-API-Key: "
                    + AttacksTest.ENTERPRISE + "\r\n\r\n2\r\n{\"\r\nzz\r\n").getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
            answer = statusLine(socket);
        }

        assertThat(answer).isEqualTo("HTTP/1.1 400 Bad Request");
    }

    @Test
    @Order(Integer.MAX_VALUE)
    void fiveHundredTruncatedBodies_writeAtMostTheSampledLines_regressionForLogFlood() throws IOException {
        int lines;
        String log;
        long started = System.nanoTime();
        try (StderrCapture stderr = new StderrCapture()) {
            for (int i = 0; i < 500; i++) {
                try (Socket socket = startSlowTransfer(TRUNCATING, "X-API-Key", AttacksTest.ENTERPRISE)) {
                    socket.shutdownOutput();
                    socket.getInputStream().readAllBytes();
                }
            }
            log = stderr.text();
        }
        double seconds = (System.nanoTime() - started) / 1e9;

        lines = log.split("\n").length;
        // sampled: 20 at once, then 20 a second, plus a summary line every 10 s
        assertThat(lines).isLessThanOrEqualTo(20 + (int) Math.ceil(seconds * 21) + 2);
        assertThat(log).doesNotContain("\tat ");
    }
}
