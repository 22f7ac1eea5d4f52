package dev.quota.redis;

import dev.quota.core.spi.QuotaStore;
import dev.quota.core.store.QuotaStoreContract;
import dev.quota.testkit.MutableClock;
import dev.quota.testkit.RedisExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The store contract against a standalone Redis with {@code ownConnections(false)}: every script
 * and read goes through Redisson's command executor, the reference path the store's own
 * connection must agree with.
 */
class RedisStoreContractThroughRedissonTest extends QuotaStoreContract {

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    @Override
    protected QuotaStore newStore(MutableClock clock) {
        return RedisStore.builder().uri(redis.uri()).clock(clock).ownConnections(false).build();
    }
}
