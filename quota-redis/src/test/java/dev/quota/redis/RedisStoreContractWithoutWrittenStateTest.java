package dev.quota.redis;

import dev.quota.core.spi.QuotaStore;
import dev.quota.core.store.QuotaStoreContract;
import dev.quota.testkit.MutableClock;
import dev.quota.testkit.RedisExtension;
import java.time.Duration;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The store contract against a standalone Redis with {@code reuseWrittenState(false)}: every decision
 * reads its keys before the compare-and-swap, so remembering written states cannot hide a contract bug.
 */
class RedisStoreContractWithoutWrittenStateTest extends QuotaStoreContract {

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    @Override
    protected QuotaStore newStore(MutableClock clock) {
        return RedisStore.builder().uri(redis.uri()).clock(clock).reuseWrittenState(false).build();
    }
}
