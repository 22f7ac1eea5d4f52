package dev.quota.jcache;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Limit;
import dev.quota.core.Refill;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import dev.quota.testkit.Await;
import dev.quota.testkit.MutableClock;
import dev.quota.testkit.StderrCapture;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import javax.cache.Cache;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.expiry.CreatedExpiryPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Idle customers' entries leave the grid, never before their bucket is full again. With
 * compare-and-swap on Hazelcast each entry expires by itself (time to full plus the margin); with
 * entry processors the cache's own policy decides, and the store warns when a bucket needs longer
 * than the cache keeps it.
 *
 * <p>Bucket time is a frozen clock, but Hazelcast expires entries by its own wall clock: those tests
 * keep the lifetimes to a few seconds and wait for them, bounded.
 */
class ExpiryTest {

    @RegisterExtension
    static HazelcastGrid grid = HazelcastGrid.shared();

    private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");

    private static BucketSpec greedy(long capacity, Duration period) {
        return BucketSpec.of(List.of(new Limit("burst", capacity, Refill.greedy(capacity, period))), 1);
    }

    private static BucketKey key() {
        return new BucketKey("quota-test:" + UUID.randomUUID());
    }

    @Test
    void compareAndSwapOnHazelcast_expiresEachEntryWhenItsBucketIsFullAgainPlusTheMargin() {
        Cache<String, byte[]> cache = grid.cache(0, "expiry-cas");
        Cache<String, byte[]> seenByOther = grid.cache(1, "expiry-cas");
        BucketKey soon = key();
        BucketKey later = key();
        try (JCacheStore store = JCacheStore.builder(cache).clock(clock).expiryMargin(Duration.ofSeconds(1)).build()) {
            assertThat(store.describe()).contains("each entry expires 1 s after its bucket is full again");
            // created with 1 token of 2 taken (full in 1 s), then updated with the second taken: full in
            // 2 s, so the entry lives 3 s from the update
            assertThat(store.tryConsume(soon, greedy(2, Duration.ofSeconds(2)), 1).nanosToFull())
                    .isEqualTo(Duration.ofSeconds(1).toNanos());
            long written = System.nanoTime();
            assertThat(store.tryConsume(soon, greedy(2, Duration.ofSeconds(2)), 1).nanosToFull())
                    .isEqualTo(Duration.ofSeconds(2).toNanos());
            // 1 of 10 refilled per hour: full in 6 minutes
            store.tryConsume(later, greedy(10, Duration.ofHours(1)), 1);
            assertThat(seenByOther.containsKey(soon.value())).isTrue();

            Await.until(Duration.ofSeconds(30), () -> !seenByOther.containsKey(soon.value()),
                    () -> "the entry of a bucket full again 2 s after its last write expires");
            long livedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - written);

            System.out.printf("expiry: entry with a 3 s lifetime gone %d ms after its last write%n", livedMillis);
            assertThat(livedMillis).as("lived, after its last write, at least its time to full plus the margin").isGreaterThanOrEqualTo(3_000);
            assertThat(seenByOther.containsKey(later.value())).as("the bucket full in 6 minutes is kept").isTrue();
            assertThat(store.peek(later, greedy(10, Duration.ofHours(1))).remaining()).containsExactly(9);
        }
    }

    @Test
    void entryProcessors_withACacheExpiringAfterWrite_entriesGoAfterThatTime() {
        Cache<String, byte[]> cache = JCacheStore.cache(grid.cacheManager(0), "expiry-ep-" + UUID.randomUUID(),
                Duration.ofSeconds(2));
        BucketKey key = key();
        try (JCacheStore store = JCacheStore.builder(cache).update(JCacheStore.Update.ENTRY_PROCESSOR).clock(clock).build()) {
            assertThat(store.describe()).contains("entry processors, entries kept at least 2 s after a write");
            long written = System.nanoTime();
            store.tryConsume(key, greedy(2, Duration.ofSeconds(1)), 1);

            Await.until(Duration.ofSeconds(30), () -> !cache.containsKey(key.value()), () -> "the entry expires");

            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - written)).isGreaterThanOrEqualTo(2_000);
        }
    }

    @Test
    void aBucketNeedingLongerThanTheCacheKeepsIt_isWarnedAbout() {
        Cache<String, byte[]> cache = JCacheStore.cache(grid.cacheManager(1), "expiry-warn-" + UUID.randomUUID(),
                Duration.ofMinutes(1));
        BucketKey quick = key();
        BucketKey slow = key();
        try (StderrCapture log = new StderrCapture();
             JCacheStore store = JCacheStore.builder(cache).update(JCacheStore.Update.ENTRY_PROCESSOR).clock(clock).build()) {
            store.tryConsume(quick, greedy(10, Duration.ofSeconds(10)), 10); // full again in 10 s: fine
            assertThat(log.text()).doesNotContain("needs");

            store.tryConsume(slow, greedy(10, Duration.ofHours(1)), 1); // full again in 6 minutes

            assertThat(log.text()).contains("bucket " + slow + " needs 360 s to be full again, but cache '"
                    + cache.getName() + "' may drop it 60 s after it is written");
        }
    }

    @Test
    void aCacheThatNeverDropsEntries_isWarnedAboutWhereTheStoreDoesNotExpireThemItself() {
        Cache<String, byte[]> eternal = grid.cache(0, "expiry-eternal");
        try (StderrCapture log = new StderrCapture()) {
            JCacheStore.builder(eternal).clock(clock).build().close(); // compare-and-swap sets each entry's expiry
            assertThat(log.text()).doesNotContain("keeps bucket entries until they are removed");

            JCacheStore.builder(eternal).update(JCacheStore.Update.ENTRY_PROCESSOR).clock(clock).build().close();

            assertThat(log.text()).contains("cache 'expiry-eternal' keeps bucket entries until they are removed");
        }
    }

    @Test
    void aCacheThatDoesNotRenewExpiryOnUpdate_guaranteesNothingAfterAWrite() {
        // CreatedExpiryPolicy: an entry created a day ago goes now, however recently it was written
        Cache<String, byte[]> cache = grid.cacheManager(0).createCache("expiry-created-" + UUID.randomUUID(),
                new MutableConfiguration<String, byte[]>().setTypes(String.class, byte[].class)
                        .setExpiryPolicyFactory(CreatedExpiryPolicy.factoryOf(javax.cache.expiry.Duration.ONE_DAY)));
        try (StderrCapture log = new StderrCapture();
             JCacheStore store = JCacheStore.builder(cache).perEntryExpiry(false).clock(clock).build()) {
            assertThat(store.describe()).contains("compare-and-swap, entries kept at least 0 s after a write");

            store.tryConsume(key(), greedy(10, Duration.ofSeconds(10)), 1);

            assertThat(log.text()).contains("needs 1 s to be full again").contains("may drop it 0 s after");
        }
    }
}
