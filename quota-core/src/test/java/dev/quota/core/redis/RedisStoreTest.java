package dev.quota.core.redis;

import dev.quota.core.spi.QuotaStore;
import dev.quota.core.store.QuotaStoreContract;
import dev.quota.testkit.MutableClock;
import dev.quota.testkit.RedisServer;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The store contract against a real redis-server process. */
class RedisStoreTest extends QuotaStoreContract {

    private static RedisServer redis;

    @BeforeAll
    static void startRedis() {
        redis = RedisServer.start();
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    @Override
    protected QuotaStore newStore(MutableClock clock) {
        return RedisStore.builder().uri(redis.uri()).clock(clock).timeout(Duration.ofSeconds(2)).build();
    }
}
