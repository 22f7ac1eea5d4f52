package dev.quota.jaxrs;

import dev.quota.core.spi.QuotaStore;
import dev.quota.redis.RedisStore;
import dev.quota.testkit.RedisExtension;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The same 100 simultaneous requests, counted in a real redis-server. */
class RedisConcurrencyTest extends ConcurrencyContract {

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    @Override
    QuotaStore store(Clock clock) {
        // Generous timeout and compare-and-swap budget: this test is about exact counting, and 100
        // requests on one key at once on a 2-core machine exceed the 100 ms defaults (answered 503).
        return RedisStore.builder().uri(redis.uri()).clock(clock).timeout(Duration.ofSeconds(2))
                .retryBudget(Duration.ofSeconds(5))
                .build();
    }
}
