package dev.quota.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Limit;
import dev.quota.core.Refill;
import dev.quota.core.spi.QuotaStore;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** 100 requests released at once against a capacity of 10: exactly 10 pass, whatever the store. */
abstract class ConcurrencyContract {

    private static final int REQUESTS = 100;

    /** The store under test, on {@code clock}. */
    abstract QuotaStore store(Clock clock);

    @Test
    void hundredSimultaneousRequests_admitExactlyTheCapacity_andTell429sWhenToRetry() throws Exception {
        // 1 token per hour: nothing refills while the test runs, even if the clock were real
        Limit hourly = new Limit("burst", 10, Refill.greedy(1, Duration.ofHours(1)));
        TestConfig config = TestConfig.standard().plan("free", hourly);
        Function<Clock, QuotaStore> stores = this::store;
        try (Fixture fixture = Fixture.with(config).store(stores).start()) {
            // connections and code paths warm, on another customer's bucket, so the burst measures counting only
            assertThat(fixture.server.get("/api/v1/accounts/0").statusCode()).isEqualTo(200);
            List<HttpResponse<String>> responses = fireAtOnce(fixture.server);

            Map<Integer, Long> byStatus = responses.stream()
                    .collect(Collectors.groupingBy(HttpResponse::statusCode, Collectors.counting()));
            assertThat(byStatus).containsOnly(Map.entry(200, 10L), Map.entry(429, 90L));
            for (HttpResponse<String> response : responses) {
                if (response.statusCode() == 429) {
                    // one token takes an hour to come back; the bucket is full again in ten hours
                    assertThat(response.headers().firstValue("Retry-After")).hasValue("3600");
                    assertThat(response.headers().firstValue("RateLimit")).hasValue("\"free-burst\";r=0;t=36000");
                    assertThat(response.body()).contains("\"retryAfterSeconds\":3600");
                }
            }
        }
    }

    private static List<HttpResponse<String>> fireAtOnce(TestServer server) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(REQUESTS);
        try {
            CountDownLatch ready = new CountDownLatch(REQUESTS);
            CountDownLatch go = new CountDownLatch(1);
            List<Future<HttpResponse<String>>> futures = new ArrayList<>();
            for (int i = 0; i < REQUESTS; i++) {
                futures.add(pool.submit(() -> {
                    ready.countDown();
                    go.await();
                    return server.get("/api/v1/accounts/7", "X-API-Key", TestConfig.ACME_KEY);
                }));
            }
            assertThat(ready.await(10, TimeUnit.SECONDS)).isTrue();
            go.countDown();
            List<HttpResponse<String>> responses = new ArrayList<>();
            for (Future<HttpResponse<String>> future : futures) {
                responses.add(future.get(30, TimeUnit.SECONDS));
            }
            return responses;
        } finally {
            pool.shutdownNow();
        }
    }
}
