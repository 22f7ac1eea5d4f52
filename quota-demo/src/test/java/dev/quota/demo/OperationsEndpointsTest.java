package dev.quota.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code GET /metrics} on the management listener (127.0.0.1 only, never on the API port) and the
 * admin API at {@code /admin}, which no quota limits.
 */
class OperationsEndpointsTest {

    static final String TOKEN = "test-admin-token-0123456789abcdef-GHIJ";

    static RunningDemo demo;
    static URI base;
    static URI management;

    @BeforeAll
    static void start() {
        demo = RunningDemo.start(Configs.bundled(), null, TOKEN, Duration.ofSeconds(5));
        base = demo.app.baseUris().get(0);
        management = demo.management;
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
    void metrics_afterARequest_answers200PrometheusTextWithQuotaDecisionsTotal() {
        assertThat(Http.get(demo.api.resolve("accounts/ACC-1001"), "X-API-Key", "demo-free-key").statusCode())
                .isEqualTo(200);

        HttpResponse<String> metrics = Http.get(management.resolve("metrics"));

        assertThat(metrics.statusCode()).isEqualTo(200);
        assertThat(Http.header(metrics, "Content-Type")).startsWith("text/plain; version=0.0.4");
        assertThat(metrics.body()).containsPattern(
                "(?m)^quota_decisions_total\\{[^}]*outcome=\"allowed\"[^}]*plan=\"free\"[^}]*} [1-9]")
                .contains("# TYPE quota_decision_latency_seconds histogram");
    }

    @Test
    void metrics_isNotLimitedLikeAnAnonymousCaller() {
        // anonymous callers get a burst of 10: a scraper must never see 429
        for (int i = 0; i < 15; i++) {
            HttpResponse<String> metrics = Http.get(management.resolve("metrics"));
            assertThat(metrics.statusCode()).as("scrape %d", i + 1).isEqualTo(200);
            assertThat(Http.header(metrics, "RateLimit")).isEmpty();
        }
    }

    @Test
    void metrics_post_is405() {
        HttpResponse<String> response = Http.send(Http.request(management.resolve("metrics"))
                .POST(java.net.http.HttpRequest.BodyPublishers.noBody()));

        assertThat(response.statusCode()).isEqualTo(405);
        assertThat(Http.header(response, "Allow")).isEqualTo("GET, HEAD");
        assertThat(Http.header(response, "Content-Type")).startsWith("application/problem+json");
    }

    /** What broke: /metrics was on the public API port, unmetered, with per-plan counts for anyone. */
    @Test
    void metrics_onTheApiPort_is404() {
        HttpResponse<String> response = Http.get(base.resolve("metrics"));

        assertThat(response.statusCode()).isEqualTo(404);
        assertThat(Http.header(response, "Content-Type")).startsWith("application/problem+json");
        assertThat(response.body()).doesNotContain("quota_decisions_total");
    }

    @Test
    void managementListener_isOnLoopback_onAPortOfItsOwn_andServesMetricsOnly() {
        assertThat(management.getHost()).isEqualTo("127.0.0.1");
        assertThat(management.getPort()).isNotEqualTo(base.getPort());

        HttpResponse<String> other = Http.get(management.resolve("api/v1/accounts/ACC-1001"));

        assertThat(other.statusCode()).isEqualTo(404);
        assertThat(Http.header(other, "Content-Type")).startsWith("application/problem+json");
    }

    @Test
    void managementListener_refusesAHostThatIsNotLoopback_asDnsRebindingWouldSend() throws Exception {
        String rebound = raw(management, "GET /metrics HTTP/1.1\r\nHost: 127.attacker.example:" + management.getPort()
                + "\r\nConnection: close\r\n\r\n");
        String local = raw(management, "GET /metrics HTTP/1.1\r\nHost: localhost:" + management.getPort()
                + "\r\nConnection: close\r\n\r\n");

        assertThat(rebound).startsWith("HTTP/1.1 403 ").contains("application/problem+json")
                .doesNotContain("quota_decisions_total");
        assertThat(local).startsWith("HTTP/1.1 200 ");
    }

    @Test
    void admin_wrongTokensFromOneAddress_areThrottledAfterFive() {
        for (int i = 0; i < 5; i++) {
            assertThat(Http.get(base.resolve("admin/config"), "Authorization", "Bearer wrong-" + i).statusCode())
                    .isEqualTo(401);
        }

        HttpResponse<String> throttled = Http.get(base.resolve("admin/config"), "Authorization", "Bearer " + TOKEN);

        assertThat(throttled.statusCode()).isEqualTo(429);
        assertThat(Http.header(throttled, "Retry-After")).isEqualTo("10");
        demo.clock.advance(Duration.ofSeconds(10));
        assertThat(Http.get(base.resolve("admin/config"), "Authorization", "Bearer " + TOKEN).statusCode())
                .isEqualTo(200);
    }

    @Test
    void admin_customerStanding_withToken_showsEveryLimitWithoutTakingAny() {
        assertThat(Http.get(demo.api.resolve("accounts/ACC-1001"), "X-API-Key", "demo-free-key").statusCode())
                .isEqualTo(200);

        HttpResponse<String> response = Http.get(base.resolve("admin/customers/ACME-FREE"),
                "Authorization", "Bearer " + TOKEN);
        HttpResponse<String> again = Http.get(base.resolve("admin/customers/ACME-FREE"),
                "Authorization", "Bearer " + TOKEN);

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(Http.header(response, "Content-Type")).startsWith("application/json");
        assertThat(Http.header(response, "RateLimit")).as("admin calls are not limited").isEmpty();
        assertThat(response.body()).contains("ACME-FREE", "free-burst");
        assertThat(again.body()).as("a look takes nothing").isEqualTo(response.body());
    }

    @Test
    void admin_withoutToken_is401() {
        HttpResponse<String> response = Http.get(base.resolve("admin/customers/ACME-FREE"));

        assertThat(response.statusCode()).isEqualTo(401);
        assertThat(response.body()).doesNotContain("free-burst");
    }

    @Test
    void admin_withWrongToken_is401() {
        HttpResponse<String> response = Http.get(base.resolve("admin/customers/ACME-FREE"),
                "Authorization", "Bearer " + TOKEN + "x");

        assertThat(response.statusCode()).isEqualTo(401);
    }

    /** Sends {@code request} as it is to {@code uri}'s host and port and returns the whole answer. */
    private static String raw(URI uri, String request) throws java.io.IOException {
        try (java.net.Socket socket = new java.net.Socket(uri.getHost(), uri.getPort())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(request.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
            return new String(socket.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.ISO_8859_1);
        }
    }

    @Test
    void clientAddress_xForwardedForFromAnUntrustedPeer_isIgnored() {
        HttpResponse<String> response = Http.get(demo.api.resolve("quota"), "X-Forwarded-For", "203.0.113.7");

        JsonNode standing = Http.json(response);
        assertThat(standing.get("customer").asText()).isEqualTo("ip:127.0.0.1");
    }
}
