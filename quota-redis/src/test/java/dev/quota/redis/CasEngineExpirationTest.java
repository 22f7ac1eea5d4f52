package dev.quota.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Limit;
import dev.quota.core.Refill;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import dev.quota.redis.internal.engine.CasEngineProxyManager;
import dev.quota.testkit.RedisExtension;
import dev.quota.testkit.RespClient;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The TTL a Bucket4j command's key gets in Redis is the one its proxy manager asks for, as with
 * Bucket4j's own Redis managers; the store's decisions keep the store's own TTL.
 */
class CasEngineExpirationTest {

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    /** 10 tokens, 10 per 10 s: one token taken refills in 1 s. */
    private static final BucketConfiguration TEN_PER_TEN_SECONDS = BucketConfiguration.builder()
            .addLimit(limit -> limit.capacity(10).refillGreedy(10, Duration.ofSeconds(10))).build();

    private static RedisStore store;
    private static RespClient resp;

    @BeforeAll
    static void open() {
        store = RedisStore.builder().uri(redis.uri()).build();
        resp = RespClient.connect(redis.server().host(), redis.server().port());
    }

    @AfterAll
    static void close() {
        resp.close();
        store.close();
    }

    /** The key's PTTL in Redis after one token is taken through a manager with {@code strategy}. */
    private static long ttlAfterOneToken(@Nullable ExpirationAfterWriteStrategy strategy) {
        CasEngineProxyManager.Builder builder = CasEngineProxyManager.builder(store.engine());
        if (strategy != null) {
            builder.expirationAfterWrite(strategy);
        }
        ProxyManager<String> manager = builder.build();
        String key = "tck-ttl:" + UUID.randomUUID();

        assertThat(manager.builder().build(key, () -> TEN_PER_TEN_SECONDS).tryConsume(1)).isTrue();

        return (Long) resp.command("PTTL", key);
    }

    @Test
    void managerWithoutExpiration_writesKeysThatNeverExpire() {
        // Bucket4j keeps the buckets of a manager without an expiration strategy for ever
        assertThat(ttlAfterOneToken(null)).isEqualTo(-1);
    }

    @Test
    void managerWithExpirationNone_writesKeysThatNeverExpire() {
        assertThat(ttlAfterOneToken(ExpirationAfterWriteStrategy.none())).isEqualTo(-1);
    }

    // PTTL is a range: Redis counts a key's time to live down in real time from the write to the read

    @Test
    void managerWithFixedTtl_writesThatTtl() {
        assertThat(ttlAfterOneToken(ExpirationAfterWriteStrategy.fixedTimeToLive(Duration.ofSeconds(30))))
                .isBetween(25_000L, 30_000L);
    }

    @Test
    void managerWithRefillBasedTtl_writesTheTimeToRefillPlusTheMargin() {
        // one token refills in 1 s, plus 5 s
        assertThat(ttlAfterOneToken(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(
                Duration.ofSeconds(5)))).isBetween(5_000L, 6_000L);
    }

    @Test
    void storeDecisions_keepTheStoresTtl() {
        BucketKey key = new BucketKey("quota-ttl:" + UUID.randomUUID());
        BucketSpec spec = BucketSpec.of(List.of(new Limit("burst", 10, Refill.greedy(10, Duration.ofSeconds(10)))), 1);

        store.tryConsume(key, spec, 1);

        // the store's default: the time to refill (1 s) plus a 60 s margin
        assertThat((Long) resp.command("PTTL", key.value())).isBetween(55_000L, 61_000L);
    }
}
