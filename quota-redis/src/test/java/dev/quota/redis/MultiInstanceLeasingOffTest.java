package dev.quota.redis;

import dev.quota.core.TokenLeasing;
import dev.quota.core.spi.QuotaStore;
import dev.quota.core.store.MultiInstanceContract;
import dev.quota.testkit.MutableClock;
import dev.quota.testkit.RedisExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link MultiInstanceTest}'s contract with leased shares off ({@code leasing: off}): three
 * instances whose every decision goes to Redis hold the limits for the fleet as well.
 */
class MultiInstanceLeasingOffTest extends MultiInstanceContract {

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    @Override
    protected QuotaStore newInstanceStore(int instance, MutableClock clock) {
        return RedisStore.builder().uri(redis.uri()).clock(clock).build();
    }

    @Override
    protected int instanceCount() {
        return 3;
    }

    @Override
    protected TokenLeasing tokenLeasing() {
        return TokenLeasing.OFF;
    }
}
