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

/** {@code GET /metrics} and the admin API at {@code /admin}, which no quota limits. */
class OperationsEndpointsTest {

    static final String TOKEN = "test-admin-token-0123456789";

    static RunningDemo demo;
    static URI base;

    @BeforeAll
    static void start() {
        demo = RunningDemo.start(Configs.bundled(), null, TOKEN, Duration.ofSeconds(5));
        base = demo.app.baseUris().get(0);
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

        HttpResponse<String> metrics = Http.get(base.resolve("metrics"));

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
            HttpResponse<String> metrics = Http.get(base.resolve("metrics"));
            assertThat(metrics.statusCode()).as("scrape %d", i + 1).isEqualTo(200);
            assertThat(Http.header(metrics, "RateLimit")).isEmpty();
        }
    }

    @Test
    void metrics_post_is405() {
        HttpResponse<String> response = Http.send(Http.request(base.resolve("metrics"))
                .POST(java.net.http.HttpRequest.BodyPublishers.noBody()));

        assertThat(response.statusCode()).isEqualTo(405);
        assertThat(Http.header(response, "Allow")).isEqualTo("GET, HEAD");
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

    @Test
    void clientAddress_xForwardedForFromAnUntrustedPeer_isIgnored() {
        HttpResponse<String> response = Http.get(demo.api.resolve("quota"), "X-Forwarded-For", "203.0.113.7");

        JsonNode standing = Http.json(response);
        assertThat(standing.get("customer").asText()).isEqualTo("ip:127.0.0.1");
    }
}
