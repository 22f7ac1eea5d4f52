package dev.quota.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.QuotaAdmin;
import dev.quota.core.QuotaDecision;
import dev.quota.core.StoreHealth;
import dev.quota.testkit.Await;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Redis dies under the running demo: the failed calls are refused with 503 until the circuit breaker
 * has established the outage (open, and its ping failing); then each limit's {@code onStoreFailure}
 * answers, without a call to Redis, and normal answers resume when Redis is back.
 */
class RedisOutageTest {

    static final String KEY = "X-API-Key";
    static final String TRANSFER = "{\"from\":\"ACC-4001\",\"to\":\"ACC-2001\",\"amount\":\"1.00\",\"currency\":\"EUR\"}";

    @Test
    void redisKilled_readsKeepAnswering_transfersGet503Fast_thenResumeAfterRestart() {
        try (RunningDemo demo = RunningDemo.start(Configs.bundled(), null, null, Duration.ofSeconds(1))) {
            assertThat(read(demo).statusCode()).isEqualTo(200);
            assertThat(transfer(demo).statusCode()).isEqualTo(201);

            demo.redis.kill();

            // until the outage is established (5 failures open the breaker, then its ping fails) a
            // failed call is refused with 503; then plan "free"'s default onStoreFailure local answers
            List<Integer> statuses = new ArrayList<>();
            Await.until(Duration.ofSeconds(20), () -> {
                HttpResponse<String> answer = read(demo);
                statuses.add(answer.statusCode());
                if (answer.statusCode() == 503) {
                    assertThat(Http.header(answer, "Retry-After")).isEqualTo("1");
                }
                return answer.statusCode() == 200;
            }, () -> "a read answered by the local policy once the outage is established");
            assertThat(statuses).as("503 until the outage is established, then 200").containsOnly(503, 200)
                    .startsWith(503).endsWith(200);
            QuotaAdmin admin = demo.app.services().get(0).admin();
            StoreHealth before = admin.store();
            assertThat(before.outage()).as("the outage is established").isTrue();
            for (int i = 0; i < 3; i++) {
                HttpResponse<String> refused = transfer(demo);

                // rule "transfers" is onStoreFailure closed
                assertThat(refused.statusCode()).isEqualTo(503);
                assertThat(Http.header(refused, "Retry-After")).isEqualTo("1");
            }
            assertThat(read(demo).statusCode()).isEqualTo(200);

            // answered by the failure policies behind the open breaker, not by a call to Redis that
            // failed (that would be counted as shed)
            StoreHealth after = admin.store();
            assertThat(after.outage()).isTrue();
            assertThat(decisionsSince(before, after, QuotaDecision.Fallback.Kind.CLOSED)).isEqualTo(3);
            assertThat(decisionsSince(before, after, QuotaDecision.Fallback.Kind.LOCAL)).isEqualTo(1);
            assertThat(decisionsSince(before, after, QuotaDecision.Fallback.Kind.SHED)).isZero();

            demo.redis.restart();

            // the breaker's probe pings Redis every 250 ms; reading the standing needs Redis itself
            int status = Await.result(Duration.ofSeconds(10), () -> {
                int answered = Http.get(demo.api.resolve("quota"), KEY, "demo-enterprise-key").statusCode();
                return answered == 200 ? answered : null;
            }, () -> "GET /quota to answer 200 after the restart");
            assertThat(status).as("GET /quota within 10 s of the restart").isEqualTo(200);
            assertThat(transfer(demo).statusCode()).isEqualTo(201);
            HttpResponse<String> read = read(demo);
            assertThat(read.statusCode()).isEqualTo(200);
            // the restarted Redis is empty: the bucket starts again at full, counted in Redis
            assertThat(Http.header(read, "RateLimit")).contains("\"free-burst\";r=19;");
        }
    }

    private static long decisionsSince(StoreHealth before, StoreHealth after, QuotaDecision.Fallback.Kind kind) {
        return after.fallbackDecisions().get(kind) - before.fallbackDecisions().get(kind);
    }

    private static HttpResponse<String> read(RunningDemo demo) {
        return Http.get(demo.api.resolve("accounts/ACC-1001"), KEY, "demo-free-key");
    }

    /** As the enterprise customer, whose plan is onStoreFailure open: only the rule can refuse. */
    private static HttpResponse<String> transfer(RunningDemo demo) {
        return Http.postJson(demo.api.resolve("transfers"), TRANSFER, KEY, "demo-enterprise-key");
    }
}
