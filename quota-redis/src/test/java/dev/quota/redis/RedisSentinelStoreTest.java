package dev.quota.redis;

import java.util.List;
import dev.quota.testkit.RespClient;
import dev.quota.testkit.RedisServer;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.Refill;
import dev.quota.core.Limit;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.spi.QuotaStore;
import dev.quota.core.store.QuotaStoreContract;
import dev.quota.testkit.MutableClock;
import dev.quota.testkit.RedisExtension;
import dev.quota.testkit.RedisSentinelTopology;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.config.ReadMode;

/** The store contract against a Sentinel-managed master with one replica and three sentinels. */
class RedisSentinelStoreTest extends QuotaStoreContract {

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.sentinel();

    @Override
    protected QuotaStore newStore(MutableClock clock) {
        RedisSentinelTopology topology = redis.sentinelTopology();
        return RedisStore.builder().sentinel(topology.masterName(), topology.sentinelAddresses())
                .clock(clock).build();
    }

    @Test
    void builder_readsFromTheMasterOnly() {
        RedisStore redisStore = (RedisStore) store;

        // a compare-and-swap that reads a lagging replica would fail or admit extra
        assertThat(redisStore.client().getConfig().useSentinelServers().getReadMode()).isEqualTo(ReadMode.MASTER);
        assertThat(redisStore.describe()).startsWith("redis sentinel " + redis.sentinelTopology().masterName() + " via ");
    }

    @Test
    void aDecision_isWrittenOnTheMasterTheSentinelsName_andPingAnswersFromIt() {
        BucketKey key = freshKey();
        store.tryConsume(key, BucketSpec.of(List.of(new Limit("burst", 5, Refill.greedy(5, Duration.ofHours(1)))), 1), 1);
        ((RedisStore) store).ping();

        RedisServer master = redis.sentinelTopology().master();
        try (RespClient resp = RespClient.connect(master.host(), master.port())) {
            assertThat(resp.command("EXISTS", key.value())).as("the bucket on the master").isEqualTo(1L);
        }
    }
}
