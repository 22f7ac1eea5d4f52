package dev.quota.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.testkit.Await;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Redis dies under the running demo: the failed calls are refused with 503 until the circuit breaker
 * has established the outage (open, and its ping failing); then each limit's {@code onStoreFailure}
 * answers, at once, and normal answers resume when Redis is back.
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
            for (int i = 0; i < 3; i++) {
                long start = System.nanoTime();
                HttpResponse<String> refused = transfer(demo);
                Duration took = Duration.ofNanos(System.nanoTime() - start);

                // rule "transfers" is onStoreFailure closed
                assertThat(refused.statusCode()).isEqualTo(503);
                assertThat(Http.header(refused, "Retry-After")).isEqualTo("1");
                assertThat(took).as("answered by the open breaker, not after a Redis timeout")
                        .isLessThan(Duration.ofMillis(500));
            }
            long start = System.nanoTime();
            assertThat(read(demo).statusCode()).isEqualTo(200);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(500));

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

    private static HttpResponse<String> read(RunningDemo demo) {
        return Http.get(demo.api.resolve("accounts/ACC-1001"), KEY, "demo-free-key");
    }

    /** As the enterprise customer, whose plan is onStoreFailure open: only the rule can refuse. */
    private static HttpResponse<String> transfer(RunningDemo demo) {
        return Http.postJson(demo.api.resolve("transfers"), TRANSFER, KEY, "demo-enterprise-key");
    }
}
