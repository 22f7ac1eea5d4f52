package dev.quota.redis;

import dev.quota.core.spi.QuotaStore;
import dev.quota.core.store.MultiInstanceContract;
import dev.quota.testkit.MutableClock;
import dev.quota.testkit.RedisExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link MultiInstanceTest}'s contract with {@code ownConnections(false)}: three instances whose
 * every command goes through Redisson's executor hold the limits for the fleet as well.
 */
class MultiInstanceThroughRedissonTest extends MultiInstanceContract {

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    @Override
    protected QuotaStore newInstanceStore(int instance, MutableClock clock) {
        return RedisStore.builder().uri(redis.uri()).clock(clock).ownConnections(false).build();
    }

    @Override
    protected int instanceCount() {
        return 3;
    }
}
