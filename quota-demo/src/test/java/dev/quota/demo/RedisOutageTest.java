package dev.quota.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.testkit.Await;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Redis dies under the running demo: each limit's {@code onStoreFailure} answers, at once once
 * the circuit breaker is open, and normal answers resume when Redis is back.
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

            // the first failures (5 open the breaker) may each wait for a Redis timeout; plan
            // "free" has the default onStoreFailure local, so the reads are answered all the same
            for (int i = 0; i < 5; i++) {
                assertThat(read(demo).statusCode()).as("read %d during the outage", i + 1).isEqualTo(200);
            }
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
