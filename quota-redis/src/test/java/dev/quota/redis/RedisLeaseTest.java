package dev.quota.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.testkit.MutableClock;
import dev.quota.testkit.RedisExtension;
import dev.quota.testkit.RespClient;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Lease sets on Redis, with the store's defaults: what the store keeps in memory never refuses a
 * lease that another instance gave back, and taking or giving back a lease is one script.
 */
class RedisLeaseTest {

    private static final BucketSpec FIVE = BucketSpec.leases("transfers", 5, Duration.ofSeconds(60), 1);

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private static RespClient admin;

    private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");

    @BeforeAll
    static void connectAdmin() {
        admin = RespClient.connect(redis.server().host(), redis.server().port());
    }

    @AfterAll
    static void closeAdmin() {
        admin.close();
    }

    @Test
    void leaseRefusedFromAStateRedisConfirmed_isAskedAgainOnceAnotherInstanceGaveOneBack() {
        BucketKey key = new BucketKey("quota-test:{" + UUID.randomUUID() + "}:l");
        try (RedisStore a = RedisStore.builder().uri(redis.uri()).clock(clock).build();
             RedisStore b = RedisStore.builder().uri(redis.uri()).clock(clock).build()) {
            for (int i = 0; i < 4; i++) {
                assertThat(a.tryConsume(key, FIVE, 1).tokensTaken()).isTrue();
            }
            long bLease = b.tryConsume(key, FIVE, 1).lease();
            assertThat(a.tryConsume(key, FIVE, 1).tokensTaken()).as("five running").isFalse();

            b.releaseLease(key, FIVE, bLease);

            // the clock has not moved: a rate refusal would stand on a's confirmed state here
            ConsumeResult after = a.tryConsume(key, FIVE, 1);
            assertThat(after.tokensTaken()).isTrue();
            assertThat(after.remaining()).containsExactly(0);
        }
    }

    @Test
    void takingALease_andGivingItBack_costOneScriptEach() {
        BucketKey key = new BucketKey("quota-test:{" + UUID.randomUUID() + "}:l");
        try (RedisStore store = RedisStore.builder().uri(redis.uri()).clock(clock).build()) {
            store.tryConsume(key, FIVE, 1); // the key is read once, then known
            admin.command("CONFIG", "RESETSTAT");

            long lease = store.tryConsume(key, FIVE, 1).lease();
            assertThat(scripts()).isEqualTo(1);

            store.releaseLease(key, FIVE, lease);
            assertThat(scripts()).isEqualTo(2);
            assertThat(store.peek(key, FIVE).remaining()).containsExactly(4);
        }
    }

    private static long scripts() {
        Map<String, Long> calls = new TreeMap<>(admin.commandStats());
        return calls.getOrDefault("evalsha", 0L) + calls.getOrDefault("eval", 0L);
    }
}
