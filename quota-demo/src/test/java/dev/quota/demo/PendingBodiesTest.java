package dev.quota.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Customer;
import dev.quota.core.LimitStatus;
import dev.quota.testkit.Await;
import dev.quota.testkit.RawHttp;
import dev.quota.testkit.StderrCapture;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Transfers whose bodies never come: not one byte after the headers. Each takes its plan token and
 * its in-flight lease when it arrives, so the customer's pending bodies count against
 * {@code concurrency: 5}; at most 16 bodies of one customer or one address wait here at once
 * ({@code identity.pendingBodies}); a body that stalls is answered 408 {@code body-timeout} at the
 * server's idle timeout (10 s) with one sampled log line, its request token spent, its rule token
 * given back with the 4xx and its lease back.
 * Another customer on another address asks for its account every 100 ms throughout.
 */
class PendingBodiesTest {

    private static final String PRO = "demo-pro-key";
    private static final Customer GLOBEX = Customer.of("GLOBEX-PRO", "pro");
    private static final Customer INITECH = Customer.of("INITECH-ENT", "enterprise");
    private static final String ATTACKER = "127.0.0.61";
    private static final String LEGITIMATE = "127.0.0.62";
    /** A USD transfer between the pro customer's account and another, padded to {@link SlowTransfer#LENGTH} bytes. */
    private static final String BODY = padded(
            "{\"from\":\"ACC-2001\",\"to\":\"ACC-1002\",\"amount\":\"1.00\",\"currency\":\"USD\"}");

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

    private static long remaining(Customer customer, String policy) {
        return demo.app.services().get(0).admin().standing(customer).stream()
                .filter(s -> s.policy().equals(policy)).mapToLong(LimitStatus::remaining).findFirst().orElseThrow();
    }

    private static RawHttp.Answer completeTransfer(String from) {
        return RawHttp.postJson(from, demo.api.getPort(), "/api/v1/transfers", BODY, "X-API-Key", PRO);
    }

    @Test
    void twentyPendingBodiesOfOneCustomer_holdTheirLeases_soATwentyFirstCompleteTransferIs429_regressionForLeaseOnArrival()
            throws IOException {
        long burstBefore = remaining(GLOBEX, "pro-burst");
        List<Socket> pending = new ArrayList<>();
        try (LegitimateCaller legitimate = LegitimateCaller.start(LEGITIMATE, demo.api.getPort())) {
            for (int i = 0; i < 5; i++) {
                pending.add(SlowTransfer.headersOnly(demo.api.getPort(), ATTACKER, "X-API-Key", PRO));
            }
            // the five took their plan token and their lease on arrival, before a byte of their bodies
            Await.until(Duration.ofSeconds(10), () -> remaining(GLOBEX, "pro-burst") == burstBefore - 5,
                    () -> "five transfers pending");
            List<String> refused = new ArrayList<>();
            for (int i = 0; i < 15; i++) {
                Socket socket = SlowTransfer.headersOnly(demo.api.getPort(), ATTACKER, "X-API-Key", PRO);
                pending.add(socket);
                refused.add(SlowTransfer.problemAnswer(socket));
            }
            RawHttp.Answer complete = completeTransfer("127.0.0.63");

            assertThat(refused).as("pending bodies 6 to 20, answered at once, their bodies unread")
                    .hasSize(15).allSatisfy(answer -> assertThat(answer).startsWith("HTTP/1.1 429 ")
                            .contains("\"type\":\"urn:quota:problem:too-many-in-flight\""));
            assertThat(complete.status()).as("a complete 21st transfer").isEqualTo(429);
            assertThat(complete.body()).contains("\"type\":\"urn:quota:problem:too-many-in-flight\"");
            assertThat(remaining(GLOBEX, "transfers-per-minute")).as("no transfer got past its lease").isEqualTo(10);
            assertThat(legitimate.worstMillis()).as("the other customer's worst latency, ms").isLessThan(1_000);
            assertThat(legitimate.statuses()).isNotEmpty().containsOnly(200);
        } finally {
            pending.forEach(SlowTransfer::abandon);
        }
        assertThat(completeTransfer("127.0.0.63").status()).as("their bodies sent at last: the leases back")
                .isEqualTo(201);
    }

    @Test
    void stalledBodies_are408BodyTimeout_oneSampledLineEach_noErrorNoStackTrace_requestTokenSpentLeaseBack_regressionFor503()
            throws IOException {
        String anonymous = "127.0.0.64";
        long perMinuteBefore = remaining(GLOBEX, "transfers-per-minute");
        List<String> answers = new ArrayList<>();
        String log;
        long worst;
        List<Integer> legitimateStatuses;
        try (StderrCapture stderr = new StderrCapture();
             LegitimateCaller legitimate = LegitimateCaller.start(LEGITIMATE, demo.api.getPort())) {
            List<Socket> stalled = new ArrayList<>();
            try {
                for (int i = 0; i < 5; i++) {
                    stalled.add(SlowTransfer.headersOnly(demo.api.getPort(), ATTACKER, "X-API-Key", PRO));
                }
                // and one without a key: the anonymous plan has quota too
                stalled.add(SlowTransfer.headersOnly(demo.api.getPort(), anonymous));
                // nothing more is sent: the server's idle timeout (10 s) ends each read
                for (Socket socket : stalled) {
                    answers.add(new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1));
                }
            } finally {
                for (Socket socket : stalled) {
                    socket.close();
                }
            }
            Await.until(Duration.ofSeconds(10), () -> stderr.text().split("could not be read", -1).length - 1 >= 6,
                    () -> "the six log lines");
            log = stderr.text();
            worst = legitimate.worstMillis();
            legitimateStatuses = legitimate.statuses();
        }

        assertThat(answers).hasSize(6).allSatisfy(answer -> assertThat(answer).startsWith("HTTP/1.1 408 Request Timeout")
                .contains("application/problem+json").contains("\"type\":\"urn:quota:problem:body-timeout\""));
        // the sampler's summary of earlier tests' client errors in this JVM may come first
        List<String> lines = log.lines().filter(line -> !line.isBlank())
                .filter(line -> !line.contains("more unreadable request bodies since")).toList();
        assertThat(lines).as("one line per stalled body, nothing else").hasSize(6).allSatisfy(line -> assertThat(line)
                .contains("INFO client-errors - ")
                .contains("the body of a request to /api/v1/transfers could not be read"));
        assertThat(log).doesNotContain("\tat ").doesNotContain("ERROR").doesNotContain("quota-check-failed");
        assertThat(remaining(GLOBEX, "pro-burst")).as("each stalled transfer's request token stays spent")
                .isEqualTo(100 - 5);
        assertThat(remaining(GLOBEX, "transfers-per-minute")).as("its rule token given back with its 4xx")
                .isEqualTo(perMinuteBefore);
        assertThat(completeTransfer("127.0.0.63").status()).as("the five leases are back").isEqualTo(201);
        assertThat(worst).as("the other customer's worst latency, ms").isLessThan(1_000);
        assertThat(legitimateStatuses).isNotEmpty().containsOnly(200);
    }

    @Test
    void seventeenthPendingBodyOfOneAddress_is429TooManyPendingBodies_beforeAnyStoreCall() throws IOException {
        // four callers on one address, four bodies each: every one within the transfers rule's 5 leases
        List<Socket> pending = new ArrayList<>();
        String seventeenth;
        try {
            for (int i = 0; i < 4; i++) {
                pending.add(SlowTransfer.headersOnly(demo.api.getPort(), ATTACKER));
            }
            for (int i = 0; i < 12; i++) {
                String key = i % 3 == 0 ? PRO : i % 3 == 1 ? AttacksTest.FREE : AttacksTest.ENTERPRISE;
                pending.add(SlowTransfer.headersOnly(demo.api.getPort(), ATTACKER, "X-API-Key", key));
            }
            Await.until(Duration.ofSeconds(10), () -> remaining(GLOBEX, "pro-burst") == 96
                            && remaining(AttacksTest.ACME, "free-burst") == 16
                            && remaining(INITECH, "enterprise-burst") == 496,
                    () -> "the keyed callers' twelve bodies pending");
            Socket socket = SlowTransfer.headersOnly(demo.api.getPort(), ATTACKER, "X-API-Key", PRO);
            pending.add(socket);
            seventeenth = SlowTransfer.problemAnswer(socket);
            assertThat(remaining(GLOBEX, "pro-burst")).as("the 17th refused before its store call").isEqualTo(96);
        } finally {
            pending.forEach(SlowTransfer::abandon);
        }

        assertThat(seventeenth).startsWith("HTTP/1.1 429 Too Many Requests").contains("Retry-After: 1")
                .contains("\"type\":\"urn:quota:problem:too-many-pending-bodies\"");
    }
}
