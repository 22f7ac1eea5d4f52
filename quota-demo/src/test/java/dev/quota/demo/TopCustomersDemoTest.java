package dev.quota.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.quota.testkit.MutableClock;
import dev.quota.testkit.RedisServer;
import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Who is being limited, on two demo instances over one Redis: the admin API's top customers, the
 * rank gauges on {@code /metrics}, and the refusals in the caller's own {@code GET /api/v1/quota};
 * each instance counting the decisions it made.
 */
class TopCustomersDemoTest {

    private static final String TOKEN = "test-admin-token-0123456789abcdef-GHIJ";
    private static final String BEARER = "Bearer " + TOKEN;

    static RedisServer redis;
    static MutableClock clock;
    static DemoApp app;

    @BeforeAll
    static void start() {
        redis = RedisServer.start();
        clock = MutableClock.at("2026-01-12T09:00:30Z");
        app = DemoApp.start(new DemoApp.Settings(Configs.bundled(), redis.uri(), "127.0.0.1", 0, 2,
                Duration.ofSeconds(5), clock, null, TOKEN, 0));
    }

    @AfterAll
    static void stop() {
        try {
            if (app != null) {
                app.close();
            }
        } finally {
            if (redis != null) {
                redis.close();
            }
        }
    }

    private static URI instance(int i) {
        return app.baseUris().get(i);
    }

    @Test
    void refusalsOnOneInstance_areNamedByItsAdminApiAndGauges_andByNoOtherInstance() {
        for (int i = 0; i < 23; i++) { // free: a burst of 20, then 3 refused
            Http.get(instance(0).resolve("api/v1/accounts/ACC-1001"), "X-API-Key", "demo-free-key");
        }
        for (int i = 0; i < 4; i++) { // pro, on the other instance: 4 admitted
            Http.get(instance(1).resolve("api/v1/accounts/ACC-2001"), "X-API-Key", "demo-pro-key");
        }

        JsonNode first = Http.json(Http.get(instance(0).resolve("admin/top-customers"), "Authorization", BEARER));
        JsonNode second = Http.json(Http.get(instance(1).resolve("admin/top-customers"), "Authorization", BEARER));

        assertThat(first.get("scope").asText()).isEqualTo("instance");
        assertThat(first.get("since").asText()).isEqualTo("2026-01-12T08:55:00Z");
        assertThat(first.get("byRefusals").toString()).isEqualTo(
                "[{\"rank\":1,\"customer\":\"ACME-FREE\",\"kind\":\"account\",\"count\":3,\"atLeast\":3}]");
        assertThat(first.get("bySpending").toString()).isEqualTo(
                "[{\"rank\":1,\"customer\":\"ACME-FREE\",\"kind\":\"account\",\"count\":20,\"atLeast\":20}]");
        assertThat(second.get("byRefusals").toString()).isEqualTo("[]");
        assertThat(second.get("bySpending").toString()).isEqualTo(
                "[{\"rank\":1,\"customer\":\"GLOBEX-PRO\",\"kind\":\"account\",\"count\":4,\"atLeast\":4}]");

        String metrics = Http.get(app.managementUris().get(0).resolve("metrics")).body();
        assertThat(metrics).contains("quota_top_refusals{rank=\"1\"} 3.0", "quota_top_refusals{rank=\"2\"} 0.0",
                "quota_top_spending{rank=\"1\"} 20.0").doesNotContain("ACME-FREE");

        // the caller's own view, once the burst has refilled: this instance refused it 3 times
        clock.advance(Duration.ofSeconds(1));
        HttpResponse<String> own = Http.get(instance(0).resolve("api/v1/quota"), "X-API-Key", "demo-free-key");
        assertThat(own.statusCode()).isEqualTo(200);
        assertThat(Http.json(own).get("recentRefusals").toString()).isEqualTo(
                "{\"count\":3,\"atLeast\":3,\"since\":\"2026-01-12T08:55:00Z\",\"scope\":\"instance\"}");
        JsonNode ownElsewhere = Http.json(Http.get(instance(1).resolve("api/v1/quota"), "X-API-Key", "demo-free-key"));
        assertThat(ownElsewhere.get("recentRefusals").get("count").asLong()).isZero();

        // six minutes on, the refusals have left the window
        clock.advance(Duration.ofMinutes(6));
        JsonNode later = Http.json(Http.get(instance(0).resolve("admin/top-customers"), "Authorization", BEARER));
        assertThat(later.get("byRefusals").toString()).isEqualTo("[]");
    }
}
