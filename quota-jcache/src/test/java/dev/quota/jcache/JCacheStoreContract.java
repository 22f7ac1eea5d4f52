package dev.quota.jcache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quota.core.Limit;
import dev.quota.core.QuotaStoreException;
import dev.quota.core.Refill;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.QuotaStore;
import dev.quota.core.spi.Take;
import dev.quota.core.store.QuotaStoreContract;
import dev.quota.testkit.MutableClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import javax.cache.Cache;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The store contract for one mode, on a real grid of two members: each store talks to its own
 * member's JCache manager (the stores of consecutive tests alternate between the members), and the
 * contract's random keys fall on both members' partitions. Adds what is particular to a grid: a
 * bucket changed through one member is seen through the other, and a consume of buckets on
 * different members keeps the SPI's semantics.
 */
abstract class JCacheStoreContract extends QuotaStoreContract {

    @RegisterExtension
    static HazelcastGrid grid = HazelcastGrid.shared();

    private static final BucketSpec TEN_PER_HOUR = BucketSpec.of(
            List.of(new Limit("hourly", 10, Refill.greedy(10, Duration.ofHours(1)))), 1);
    private static int stores;

    /** The mode under test. */
    abstract JCacheStore.Update update();

    /** Whether this JVM's concurrent decisions of an entry go in one change: the default, true. */
    boolean mergeDecisions() {
        return true;
    }

    /** A store of this mode on member {@code member}, reading {@code clock}. */
    JCacheStore store(int member, MutableClock clock) {
        return JCacheStore.builder(grid.cache(member, "contract-" + update())).update(update()).clock(clock)
                .mergeDecisions(mergeDecisions()).build();
    }

    @Override
    protected QuotaStore newStore(MutableClock clock) {
        return store(stores++ % 2, clock);
    }

    @Test
    void aBucketOnEitherMember_changedThroughOne_isSeenThroughTheOther() {
        try (JCacheStore first = store(0, clock); JCacheStore second = store(1, clock)) {
            for (int owner = 0; owner < 2; owner++) {
                BucketKey key = new BucketKey(grid.keyOwnedBy(owner, "quota-test:"));

                assertThat(first.tryConsume(key, TEN_PER_HOUR, 3).remaining()).containsExactly(7);
                assertThat(second.peek(key, TEN_PER_HOUR).remaining()).as("owner %d", owner).containsExactly(7);
                assertThat(second.tryConsume(key, TEN_PER_HOUR, 2).remaining()).containsExactly(5);
                assertThat(first.peek(key, TEN_PER_HOUR).remaining()).as("owner %d", owner).containsExactly(5);
            }
        }
    }

    @Test
    void consumeOfBucketsOnBothMembers_whenTheSecondRefuses_keepsOnlyTheRefusalCharge() {
        BucketKey plan = new BucketKey(grid.keyOwnedBy(0, "quota-test:p:"));
        BucketKey rule = new BucketKey(grid.keyOwnedBy(1, "quota-test:r:"));
        BucketKey shared = new BucketKey(grid.keyOwnedBy(0, "quota-test:s:"));
        assertThat(store.tryConsume(rule, TEN_PER_HOUR, 10).tokensTaken()).isTrue();

        // plan 2 tokens (1 when refused), shared 1, rule 1: the empty rule refuses
        List<ConsumeResult> results = store.tryConsume(List.of(Take.of(plan, TEN_PER_HOUR, 2, 1),
                Take.of(shared, TEN_PER_HOUR, 1), Take.of(rule, TEN_PER_HOUR, 1)));

        assertThat(results).extracting(ConsumeResult::tokensTaken).containsExactly(true, false, false);
        assertThat(results.get(2).nanosToWait()).isEqualTo(Duration.ofMinutes(6).toNanos());
        assertThat(store.peek(plan, TEN_PER_HOUR).remaining()).as("plan: the refusal charge only").containsExactly(9);
        assertThat(store.peek(shared, TEN_PER_HOUR).remaining()).as("shared: given back").containsExactly(10);
        assertThat(store.peek(rule, TEN_PER_HOUR).remaining()).containsExactly(0);
    }

    @Test
    void describe_namesTheCacheTheProviderAndTheMode() {
        assertThat(store.describe()).startsWith("jcache 'contract-" + update() + "' (com.hazelcast.")
                .contains(update() == JCacheStore.Update.COMPARE_AND_SWAP ? "compare-and-swap" : "entry processors");
    }

    @Test
    void ping_answersWhileTheCacheDoes_andFailsAsAStoreFailureOnceItIsClosed() {
        assertThatCode(((JCacheStore) store)::ping).doesNotThrowAnyException();

        // a cache of its own: closing the contract's would fail every later test of this class
        Cache<String, byte[]> cache = grid.cache(0, "ping-" + update() + "-" + java.util.UUID.randomUUID());
        try (JCacheStore closing = JCacheStore.builder(cache).update(update()).clock(clock).build()) {
            assertThatCode(closing::ping).doesNotThrowAnyException();
            cache.close();

            assertThatThrownBy(closing::ping).isInstanceOf(QuotaStoreException.class);
        }
    }

    /** One policy for unreadable bytes in every mode: removed, the bucket starts full (entry processors included). */
    @Test
    void bytesThatAreNoBucket_areRemoved_andTheBucketStartsFull() {
        Cache<String, byte[]> cache = grid.cache(1, "contract-" + update());
        JCacheStore onMember = JCacheStore.builder(cache).update(update()).clock(MutableClock.at("2026-11-29T10:00:00Z"))
                .build();
        BucketKey key = new BucketKey("unreadable:" + java.util.UUID.randomUUID());
        BucketSpec spec = BucketSpec.of(List.of(new Limit("burst", 5, Refill.greedy(5, Duration.ofMinutes(1)))), 1);
        cache.put(key.value(), "not a bucket".getBytes(StandardCharsets.UTF_8));

        assertThat(onMember.peek(key, spec).remaining()).containsExactly(5);
        cache.put(key.value(), "not a bucket".getBytes(StandardCharsets.UTF_8));
        assertThat(onMember.tryConsume(key, spec, 2).remaining()).containsExactly(3);
        assertThat(onMember.peek(key, spec).remaining()).containsExactly(3);
    }
}
