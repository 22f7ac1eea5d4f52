package dev.quota.core.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Limit;
import dev.quota.core.Refill;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.QuotaStore;
import dev.quota.testkit.MutableClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every store must have. Each backend (in-JVM, Redis standalone, sentinel, cluster)
 * runs this suite through a subclass.
 */
public abstract class QuotaStoreContract {

    protected final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
    protected QuotaStore store;

    /** A new store reading {@code clock}. */
    protected abstract QuotaStore newStore(MutableClock clock);

    @BeforeEach
    void openStore() {
        store = newStore(clock);
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    protected static BucketKey freshKey() {
        return new BucketKey("quota-test:" + UUID.randomUUID());
    }

    private static BucketSpec greedy(long capacity, long tokens, Duration period, long version) {
        return new BucketSpec(List.of(new Limit("burst", capacity, Refill.greedy(tokens, period))), version);
    }

    @Test
    void tryConsume_onNewBucket_startsFull() {
        ConsumeResult result = store.tryConsume(freshKey(), greedy(20, 10, Duration.ofSeconds(1), 1), 1);

        assertThat(result.consumed()).isTrue();
        assertThat(result.remaining()).containsExactly(19);
        assertThat(result.nanosToWait()).isZero();
    }

    @Test
    void tryConsume_whenBucketEmpty_returnsExactWait() {
        BucketKey key = freshKey();
        BucketSpec spec = greedy(20, 10, Duration.ofSeconds(1), 1);
        for (int i = 0; i < 20; i++) {
            assertThat(store.tryConsume(key, spec, 1).consumed()).isTrue();
        }

        ConsumeResult rejected = store.tryConsume(key, spec, 1);

        assertThat(rejected.consumed()).isFalse();
        assertThat(rejected.remaining()).containsExactly(0);
        assertThat(rejected.nanosToWait()).isEqualTo(Duration.ofMillis(100).toNanos());
        assertThat(rejected.nanosToFull()).isEqualTo(Duration.ofSeconds(2).toNanos());
    }

    @Test
    void tryConsume_afterRefillPeriod_admitsAgain() {
        BucketKey key = freshKey();
        BucketSpec spec = greedy(5, 5, Duration.ofMinutes(1), 1);
        assertThat(store.tryConsume(key, spec, 5).consumed()).isTrue();
        assertThat(store.tryConsume(key, spec, 1).consumed()).isFalse();

        clock.advance(Duration.ofSeconds(12));

        ConsumeResult result = store.tryConsume(key, spec, 1);
        assertThat(result.consumed()).isTrue();
        assertThat(result.remaining()).containsExactly(0);
    }

    @Test
    void tryConsume_withIntervalRefill_returnsNothingUntilPeriodEnds() {
        BucketKey key = freshKey();
        BucketSpec spec = new BucketSpec(List.of(new Limit("window", 3, Refill.interval(3, Duration.ofMinutes(15)))), 1);
        assertThat(store.tryConsume(key, spec, 3).consumed()).isTrue();

        clock.advance(Duration.ofMinutes(14));
        assertThat(store.tryConsume(key, spec, 1).consumed()).isFalse();

        clock.advance(Duration.ofMinutes(1));
        ConsumeResult result = store.tryConsume(key, spec, 3);
        assertThat(result.consumed()).isTrue();
    }

    @Test
    void tryConsume_withSeveralLimits_takesFromAllOrNone() {
        BucketKey key = freshKey();
        BucketSpec spec = new BucketSpec(List.of(
                new Limit("burst", 10, Refill.greedy(10, Duration.ofSeconds(1))),
                new Limit("hourly", 3, Refill.greedy(3, Duration.ofHours(1)))), 1);
        assertThat(store.tryConsume(key, spec, 2).remaining()).containsExactly(8, 1);

        ConsumeResult rejected = store.tryConsume(key, spec, 2);

        assertThat(rejected.consumed()).isFalse();
        assertThat(rejected.remaining()).containsExactly(8, 1);
        assertThat(store.tryConsume(key, spec, 1).remaining()).containsExactly(7, 0);
    }

    @Test
    void addTokens_givesBackButNeverAboveCapacity() {
        BucketKey key = freshKey();
        BucketSpec spec = greedy(10, 1, Duration.ofHours(1), 1);
        store.tryConsume(key, spec, 4);

        store.addTokens(key, spec, 3);
        assertThat(store.peek(key, spec).remaining()).containsExactly(9);

        store.addTokens(key, spec, 5);
        assertThat(store.peek(key, spec).remaining()).containsExactly(10);
    }

    @Test
    void peek_takesNothing() {
        BucketKey key = freshKey();
        BucketSpec spec = greedy(10, 1, Duration.ofHours(1), 1);
        store.tryConsume(key, spec, 4);

        assertThat(store.peek(key, spec).remaining()).containsExactly(6);
        assertThat(store.peek(key, spec).remaining()).containsExactly(6);
    }

    @Test
    void reset_makesTheNextUseStartFull() {
        BucketKey key = freshKey();
        BucketSpec spec = greedy(10, 1, Duration.ofHours(1), 1);
        store.tryConsume(key, spec, 10);

        store.reset(key);

        assertThat(store.tryConsume(key, spec, 1).remaining()).containsExactly(9);
    }

    @Test
    void higherVersion_replacesLimitsAndKeepsUsage() {
        BucketKey key = freshKey();
        store.tryConsume(key, greedy(100, 1, Duration.ofHours(1), 1), 60);

        ConsumeResult result = store.tryConsume(key, greedy(200, 1, Duration.ofHours(1), 2), 1);

        // used 60 of 100; the limit becomes 200: 140 left before this request, 139 after
        assertThat(result.remaining()).containsExactly(139);
    }

    @Test
    void lowerVersion_doesNotRevertNewerLimits() {
        BucketKey key = freshKey();
        store.tryConsume(key, greedy(200, 1, Duration.ofHours(1), 5), 1);

        ConsumeResult result = store.tryConsume(key, greedy(100, 1, Duration.ofHours(1), 4), 1);

        assertThat(result.remaining()).containsExactly(198);
    }

    @Test
    void concurrentConsumers_atFrozenTime_admitExactlyCapacity() throws Exception {
        BucketKey key = freshKey();
        BucketSpec spec = greedy(10, 1, Duration.ofHours(1), 1);
        int threads = 100;
        ExecutorService pool = Executors.newFixedThreadPool(32);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Boolean>> results = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            results.add(pool.submit(() -> {
                start.await();
                return consumeWithRetryOnContention(key, spec);
            }));
        }
        start.countDown();
        int admitted = 0;
        for (Future<Boolean> f : results) {
            admitted += f.get(30, TimeUnit.SECONDS) ? 1 : 0;
        }
        pool.shutdown();

        assertThat(admitted).isEqualTo(10);
        assertThat(store.peek(key, spec).remaining()).containsExactly(0);
    }

    /** Hook for stores whose contention handling may give up; the default consumes once. */
    protected boolean consumeWithRetryOnContention(BucketKey key, BucketSpec spec) {
        return store.tryConsume(key, spec, 1).consumed();
    }
}
