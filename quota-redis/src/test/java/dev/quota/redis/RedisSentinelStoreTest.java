package dev.quota.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.spi.QuotaStore;
import dev.quota.core.store.QuotaStoreContract;
import dev.quota.testkit.MutableClock;
import dev.quota.testkit.RedisSentinelTopology;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.config.ReadMode;

/** The store contract against a Sentinel-managed master with one replica and three sentinels. */
class RedisSentinelStoreTest extends QuotaStoreContract {

    private static RedisSentinelTopology topology;

    @BeforeAll
    static void startTopology() {
        topology = RedisSentinelTopology.start();
    }

    @AfterAll
    static void stopTopology() {
        topology.close();
    }

    @Override
    protected QuotaStore newStore(MutableClock clock) {
        return RedisStore.builder().sentinel(topology.masterName(), topology.sentinelAddresses())
                .clock(clock).timeout(Duration.ofSeconds(5)).build();
    }

    @Test
    void builder_readsFromTheMasterOnly() {
        RedisStore redis = (RedisStore) store;

        // a compare-and-swap that reads a lagging replica would fail or admit extra
        assertThat(redis.client().getConfig().useSentinelServers().getReadMode()).isEqualTo(ReadMode.MASTER);
        assertThat(redis.describe()).startsWith("redis sentinel " + topology.masterName() + " via ");
    }

    @Test
    void ping_answersThroughTheSentinelMaster() {
        ((RedisStore) store).ping();
    }
}
