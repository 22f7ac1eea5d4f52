package dev.quota.jaxrs.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.jaxrs.Fixture;
import dev.quota.jaxrs.TestConfig;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Wrong admin tokens: throttled per client address, refused calls sampled in the audit log. */
class AdminThrottlingTest {

    private static final String TOKEN = "admin-token-0123456789abcdef-GHIJKL";
    private static final String ATTACKER = "203.0.113.7";
    private static final String OPERATOR = "198.51.100.20";

    private Fixture fixture;

    @BeforeEach
    void start() {
        fixture = Fixture.with(TestConfig.standard()).admin(TOKEN).start();
    }

    @AfterEach
    void stop() {
        fixture.close();
    }

    private HttpResponse<String> config(String peer, String token) {
        return fixture.server.get("/admin/config", "Authorization", "Bearer " + token, Fixture.PEER_HEADER, peer);
    }

    private Map<Integer, Integer> wrongTokens(String peer, int count) {
        Map<Integer, Integer> statuses = new TreeMap<>();
        for (int i = 0; i < count; i++) {
            statuses.merge(config(peer, "wrong-" + i).statusCode(), 1, Integer::sum);
        }
        return statuses;
    }

    /** What broke: 300 wrong tokens in half a second were all answered 401, each with an audit line. */
    @Test
    void threeHundredWrongTokens_fiveAre401_theRest429WithRetryAfter() {
        Map<Integer, Integer> statuses = wrongTokens(ATTACKER, 300);

        assertThat(statuses).isEqualTo(Map.of(401, 5, 429, 295));
        HttpResponse<String> throttled = config(ATTACKER, "wrong");
        assertThat(throttled.headers().firstValue("Retry-After")).hasValue("10");
        assertThat(throttled.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(throttled.headers().firstValue("WWW-Authenticate")).isEmpty();
        assertThat(throttled.body()).isEqualTo("{\"type\":\"urn:quota:problem:too-many-failed-admin-tokens\","
                + "\"title\":\"Too Many Requests\",\"status\":429,"
                + "\"detail\":\"Too many wrong admin tokens from this address; retry in 10 s.\","
                + "\"retryAfterSeconds\":10}");
    }

    @Test
    void throttledAddress_isRefusedEvenWithTheRightToken_otherAddressesAreNot() {
        wrongTokens(ATTACKER, 5);

        assertThat(config(ATTACKER, TOKEN).statusCode()).as("a guesser learns nothing while blocked").isEqualTo(429);
        assertThat(config(OPERATOR, TOKEN).statusCode()).isEqualTo(200);
    }

    @Test
    void throttledAddress_getsOneMoreAttemptEveryTenSeconds() {
        wrongTokens(ATTACKER, 5);

        fixture.clock.advance(Duration.ofMillis(9_999));
        assertThat(config(ATTACKER, "wrong").headers().firstValue("Retry-After")).hasValue("1");

        fixture.clock.advance(Duration.ofMillis(1));
        assertThat(config(ATTACKER, "wrong").statusCode()).isEqualTo(401);
        assertThat(config(ATTACKER, "wrong").statusCode()).isEqualTo(429);

        fixture.clock.advance(Duration.ofSeconds(10));
        assertThat(config(ATTACKER, TOKEN).statusCode()).isEqualTo(200);
    }

    @Test
    void ipv6Addresses_countPerSlash64() {
        for (int i = 1; i <= 5; i++) {
            assertThat(config("2001:db8:1:2::" + i, "wrong").statusCode()).isEqualTo(401);
        }

        assertThat(config("2001:db8:1:2:ffff::9", TOKEN).statusCode()).isEqualTo(429);
        assertThat(config("2001:db8:1:3::1", TOKEN).statusCode()).isEqualTo(200);
    }

    @Test
    void refusedCalls_areSampledInTheAuditLog_andCountedInOneSummaryLine() {
        String flood = capturingStderr(() -> wrongTokens(ATTACKER, 300));

        assertThat(auditLines(flood)).hasSize(10);
        assertThat(auditLines(flood).get(0)).endsWith("action=config outcome=denied client=203.0.113.7");
        assertThat(auditLines(flood).get(9))
                .endsWith("action=config outcome=throttled client=203.0.113.7 retryAfterSeconds=10");
        assertThat(flood).doesNotContain("wrong-");

        fixture.clock.advance(Duration.ofSeconds(10));
        String later = capturingStderr(() -> assertThat(config(OPERATOR, TOKEN).statusCode()).isEqualTo(200));

        assertThat(auditLines(later)).containsExactly(auditLines(later).get(0));
        assertThat(auditLines(later).get(0))
                .endsWith("action=refused outcome=suppressed count=290 since=" + TestConfig.NOON);
    }

    private static java.util.List<String> auditLines(String log) {
        return log.lines().filter(line -> line.contains("dev.quota.audit")).toList();
    }

    /** Runs {@code action} with System.err captured; slf4j-simple writes there, looked up per line. */
    private static String capturingStderr(Runnable action) {
        PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            action.run();
        } finally {
            System.setErr(original);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }
}
