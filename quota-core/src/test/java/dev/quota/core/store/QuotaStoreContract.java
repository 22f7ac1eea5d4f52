package dev.quota.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quota.core.Limit;
import dev.quota.core.Refill;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.QuotaStore;
import dev.quota.core.spi.Take;
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
 * runs this suite through a subclass, and the Redis store once more with each of its
 * optimisations off.
 *
 * <p>A consume of several buckets uses keys that land in different Redis Cluster slots (a cluster
 * store splits it), except where concurrency must be exact: there the keys share a slot, since a
 * split consume may refuse a concurrent request early.
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

    /** A key in the Redis Cluster slot of {@code tag}, whatever the rest of the key. */
    protected static BucketKey keyInSlot(String tag, String name) {
        return new BucketKey("quota-test:{" + tag + "}:" + name);
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

    @Test
    void tryConsume_severalBuckets_whenAllHaveEnough_takesEveryTake() {
        BucketKey plan = freshKey();
        BucketKey day = freshKey();
        BucketKey rule = freshKey();
        BucketSpec planSpec = greedy(10, 1, Duration.ofHours(1), 1);
        BucketSpec daySpec = greedy(100, 1, Duration.ofHours(1), 1);
        BucketSpec ruleSpec = greedy(3, 1, Duration.ofHours(1), 1);

        List<ConsumeResult> results = store.tryConsume(List.of(new Take(plan, planSpec, 3, 1),
                new Take(day, daySpec, 3, 1), Take.of(rule, ruleSpec, 3)));

        assertThat(results).hasSize(3).allSatisfy(result -> {
            assertThat(result.consumed()).isTrue();
            assertThat(result.nanosToWait()).isZero();
        });
        assertThat(results.get(0).remaining()).containsExactly(7);
        assertThat(results.get(1).remaining()).containsExactly(97);
        assertThat(results.get(2).remaining()).containsExactly(0);
        assertThat(store.peek(plan, planSpec).remaining()).containsExactly(7);
        assertThat(store.peek(day, daySpec).remaining()).containsExactly(97);
        assertThat(store.peek(rule, ruleSpec).remaining()).containsExactly(0);
    }

    @Test
    void tryConsume_refusedByOneBucket_takesEachTakesRefusalTokens() {
        BucketKey plan = freshKey();
        BucketKey day = freshKey();
        BucketKey rule = freshKey();
        BucketSpec planSpec = greedy(10, 1, Duration.ofHours(1), 1);
        BucketSpec daySpec = greedy(100, 1, Duration.ofHours(1), 1);
        BucketSpec ruleSpec = greedy(5, 1, Duration.ofHours(1), 1);
        store.tryConsume(rule, ruleSpec, 4);

        List<ConsumeResult> results = store.tryConsume(List.of(new Take(plan, planSpec, 3, 1),
                new Take(day, daySpec, 3, 1), Take.of(rule, ruleSpec, 3)));

        // the rule lacks 2 tokens: the plan and the day give their refusal token, the rule nothing
        assertThat(results.get(0).consumed()).isTrue();
        assertThat(results.get(0).remaining()).containsExactly(9);
        assertThat(results.get(1).consumed()).isTrue();
        assertThat(results.get(1).remaining()).containsExactly(99);
        assertThat(results.get(2).consumed()).isFalse();
        assertThat(results.get(2).remaining()).containsExactly(1);
        assertThat(results.get(2).nanosToWait()).isEqualTo(Duration.ofHours(2).toNanos());
        assertThat(store.peek(plan, planSpec).remaining()).containsExactly(9);
        assertThat(store.peek(day, daySpec).remaining()).containsExactly(99);
        assertThat(store.peek(rule, ruleSpec).remaining()).containsExactly(1);
    }

    @Test
    void tryConsume_refusedAndATakeLacksItsRefusalTokens_takesNothing() {
        BucketKey plan = freshKey();
        BucketKey day = freshKey();
        BucketKey rule = freshKey();
        BucketSpec planSpec = greedy(2, 1, Duration.ofHours(1), 1);
        BucketSpec daySpec = greedy(100, 1, Duration.ofHours(1), 1);
        BucketSpec ruleSpec = greedy(5, 1, Duration.ofHours(1), 1);
        store.tryConsume(plan, planSpec, 2);

        List<ConsumeResult> results = store.tryConsume(List.of(new Take(plan, planSpec, 1, 1),
                new Take(day, daySpec, 1, 1), Take.of(rule, ruleSpec, 1)));

        // the plan refuses and cannot give its refusal token: the day gives none either
        assertThat(results).extracting(ConsumeResult::consumed).containsExactly(false, false, false);
        assertThat(results.get(0).nanosToWait()).isEqualTo(Duration.ofHours(1).toNanos());
        assertThat(store.peek(plan, planSpec).remaining()).containsExactly(0);
        assertThat(store.peek(day, daySpec).remaining()).containsExactly(100);
        assertThat(store.peek(rule, ruleSpec).remaining()).containsExactly(5);
    }

    @Test
    void tryConsume_aTakeLeftUntaken_reportsItsBucketAsItStands() {
        BucketKey enough = freshKey();
        BucketKey empty = freshKey();
        BucketSpec enoughSpec = greedy(10, 1, Duration.ofHours(1), 1);
        BucketSpec emptySpec = greedy(1, 1, Duration.ofHours(1), 1);
        store.tryConsume(enough, enoughSpec, 3);
        store.tryConsume(empty, emptySpec, 1);

        List<ConsumeResult> results = store.tryConsume(List.of(Take.of(enough, enoughSpec, 2),
                Take.of(empty, emptySpec, 1)));

        ConsumeResult untaken = results.get(0);
        assertThat(untaken.consumed()).isFalse();
        assertThat(untaken.remaining()).containsExactly(7);
        assertThat(untaken.nanosToWait()).as("it alone could give its tokens now").isZero();
        assertThat(untaken.sufficient()).isTrue();
        assertThat(results.get(1).sufficient()).isFalse();
        assertThat(store.peek(enough, enoughSpec).remaining()).containsExactly(7);
    }

    @Test
    void tryConsume_moreTokensThanCapacity_isRefusedWithAWaitThatNeverEnds() {
        BucketKey key = freshKey();
        BucketSpec spec = greedy(10, 10, Duration.ofSeconds(1), 1);

        ConsumeResult result = store.tryConsume(key, spec, 11);

        assertThat(result.consumed()).isFalse();
        assertThat(result.nanosToWait()).isEqualTo(Long.MAX_VALUE);
        assertThat(store.peek(key, spec).remaining()).containsExactly(10);
    }

    @Test
    void tryConsume_severalBuckets_oneAskingMoreThanItsCapacity_chargesOnlyTheRefusalTokens() {
        BucketKey plan = freshKey();
        BucketKey amount = freshKey();
        BucketSpec planSpec = greedy(10, 1, Duration.ofHours(1), 1);
        BucketSpec amountSpec = greedy(1_000, 1_000, Duration.ofDays(1), 1);

        List<ConsumeResult> results = store.tryConsume(List.of(new Take(plan, planSpec, 1, 1),
                Take.of(amount, amountSpec, 1_001)));

        assertThat(results.get(0).consumed()).isTrue();
        assertThat(results.get(0).remaining()).containsExactly(9);
        assertThat(results.get(1).consumed()).isFalse();
        assertThat(results.get(1).nanosToWait()).isEqualTo(Long.MAX_VALUE);
        assertThat(store.peek(amount, amountSpec).remaining()).containsExactly(1_000);
    }

    @Test
    void tryConsume_sameKeyTwice_throwsIllegalArgumentExceptionAndTakesNothing() {
        BucketKey key = freshKey();
        BucketSpec spec = greedy(10, 1, Duration.ofHours(1), 1);

        assertThatThrownBy(() -> store.tryConsume(List.of(Take.of(key, spec, 1), Take.of(freshKey(), spec, 1),
                Take.of(key, spec, 2))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(key.value());
        assertThatThrownBy(() -> store.tryConsume(List.of())).isInstanceOf(IllegalArgumentException.class);
        assertThat(store.peek(key, spec).remaining()).containsExactly(10);
    }

    @Test
    void concurrentMultiBucketConsumers_atFrozenTime_admitExactlyTheRuleCapacity_andChargeThePlanForEveryRequest()
            throws Exception {
        String customer = UUID.randomUUID().toString();
        BucketKey plan = keyInSlot(customer, "p");
        BucketKey rule = keyInSlot(customer, "r");
        BucketSpec planSpec = greedy(1_000, 1, Duration.ofHours(1), 1);
        BucketSpec ruleSpec = greedy(10, 1, Duration.ofHours(1), 1);
        List<Take> takes = List.of(new Take(plan, planSpec, 2, 1), Take.of(rule, ruleSpec, 1));
        int threads = 100;
        ExecutorService pool = Executors.newFixedThreadPool(32);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Boolean>> results = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            results.add(pool.submit(() -> {
                start.await();
                return store.tryConsume(takes).get(1).consumed();
            }));
        }
        start.countDown();
        int admitted = 0;
        for (Future<Boolean> f : results) {
            admitted += f.get(30, TimeUnit.SECONDS) ? 1 : 0;
        }
        pool.shutdown();

        assertThat(admitted).isEqualTo(10);
        assertThat(store.peek(rule, ruleSpec).remaining()).containsExactly(0);
        // 10 admitted requests took 2 each, 90 refused ones 1 each
        assertThat(store.peek(plan, planSpec).remaining()).containsExactly(1_000 - 10 * 2 - 90);
    }

    /** Hook for stores whose contention handling may give up; the default consumes once. */
    protected boolean consumeWithRetryOnContention(BucketKey key, BucketSpec spec) {
        return store.tryConsume(key, spec, 1).consumed();
    }
}
