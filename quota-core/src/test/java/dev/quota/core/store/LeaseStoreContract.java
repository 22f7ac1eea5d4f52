package dev.quota.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quota.core.Limit;
import dev.quota.core.Refill;
import dev.quota.core.spi.Adjustment;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.LeaseHolder;
import dev.quota.core.spi.QuotaStore;
import dev.quota.core.spi.Take;
import dev.quota.testkit.MutableClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The behaviour of lease sets ({@link BucketSpec#leases()}) every store must have: part of
 * {@link QuotaStoreContract}, so it runs against every store that runs the contract. Time moves by
 * the store's clock only.
 */
public interface LeaseStoreContract {

    Duration TIMEOUT = Duration.ofSeconds(60);
    BucketSpec FIVE = BucketSpec.leases("transfers", 5, TIMEOUT, 1);

    /** The store under test. */
    QuotaStore leaseStore();

    /** The clock the store reads. */
    MutableClock leaseClock();

    private static BucketKey key() {
        return new BucketKey("quota-test:{" + UUID.randomUUID() + "}:l");
    }

    private ConsumeResult take(BucketKey key) {
        return leaseStore().tryConsume(key, FIVE, 1);
    }

    private long free(BucketKey key) {
        return leaseStore().peek(key, FIVE).remaining()[0];
    }

    @Test
    default void fiveLeasesTaken_sixthRefused_withTheWaitUntilTheFirstEnds() {
        BucketKey key = key();
        for (int i = 0; i < 5; i++) {
            ConsumeResult taken = take(key);
            assertThat(taken.tokensTaken()).isTrue();
            assertThat(taken.remaining()).containsExactly(4 - i);
            assertThat(taken.lease()).isNotZero();
        }
        leaseClock().advance(Duration.ofSeconds(10));

        ConsumeResult sixth = take(key);

        assertThat(sixth.tokensTaken()).isFalse();
        assertThat(sixth.remaining()).containsExactly(0);
        assertThat(sixth.lease()).isZero();
        assertThat(sixth.nanosToWait()).isEqualTo(Duration.ofSeconds(50).toNanos());
        assertThat(free(key)).isZero();
    }

    @Test
    default void releasingOneLease_freesExactlyOneSlot() {
        BucketKey key = key();
        List<Long> leases = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            leases.add(take(key).lease());
            leaseClock().advance(Duration.ofMillis(1));
        }

        leaseStore().releaseLease(key, FIVE, leases.get(2));

        assertThat(free(key)).isEqualTo(1);
        assertThat(take(key).tokensTaken()).isTrue();
        assertThat(take(key).tokensTaken()).as("one slot was freed, not two").isFalse();
    }

    @Test
    default void releasingALeaseThroughAdjust_freesItsSlot() {
        BucketKey key = key();
        long first = take(key).lease();
        take(key);

        leaseStore().adjust(List.of(Adjustment.leaseRelease(key, FIVE, first)));

        assertThat(free(key)).isEqualTo(4);
    }

    @Test
    default void addTokensToALeaseSet_isRefused_forALeaseIsGivenBackByReleaseLease() {
        BucketKey key = key();
        long lease = take(key).lease();

        assertThatThrownBy(() -> leaseStore().addTokens(key, FIVE, lease))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("releaseLease");
        assertThatThrownBy(() -> Adjustment.ofTokens(key, FIVE, lease))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("leaseRelease");
        assertThat(free(key)).isEqualTo(4); // nothing given back
    }

    @Test
    default void releasingTheSameLeaseTwice_freesOneSlot() {
        BucketKey key = key();
        long first = take(key).lease();
        leaseClock().advance(Duration.ofMillis(1));
        take(key);

        leaseStore().releaseLease(key, FIVE, first);
        leaseStore().releaseLease(key, FIVE, first);

        assertThat(free(key)).isEqualTo(4);
    }

    @Test
    default void expiredLease_isFreeAtItsDeadlineByTheStoreClock() {
        BucketKey key = key();
        for (int i = 0; i < 5; i++) {
            take(key);
        }
        leaseClock().advance(TIMEOUT.minusNanos(1_000_000));
        assertThat(take(key).tokensTaken()).as("1 ms before the deadline").isFalse();

        leaseClock().advance(Duration.ofMillis(1));

        assertThat(free(key)).isEqualTo(5);
        assertThat(take(key).tokensTaken()).isTrue();
    }

    @Test
    default void staleRelease_afterItsLeaseExpired_doesNotFreeTheSlotSomeoneElseHolds() {
        BucketSpec one = BucketSpec.leases("export", 1, TIMEOUT, 1);
        BucketKey key = key();
        long expired = leaseStore().tryConsume(key, one, 1).lease();
        leaseClock().advance(TIMEOUT);
        long current = leaseStore().tryConsume(key, one, 1).lease();
        assertThat(current).isNotEqualTo(expired);

        leaseStore().releaseLease(key, one, expired);

        assertThat(leaseStore().tryConsume(key, one, 1).tokensTaken()).as("never two running").isFalse();
        leaseStore().releaseLease(key, one, current);
        assertThat(leaseStore().tryConsume(key, one, 1).tokensTaken()).isTrue();
    }

    @ParameterizedTest(name = "same slot: {0}")
    @ValueSource(booleans = {true, false})
    default void consumeRefusedByARateLimit_holdsNoLease(boolean sameSlot) {
        String tag = UUID.randomUUID().toString();
        BucketKey leases = new BucketKey(sameSlot ? "quota-test:{" + tag + "}:l" : "quota-test:" + tag + ":l");
        BucketKey rate = new BucketKey(sameSlot ? "quota-test:{" + tag + "}:r" : "quota-test:" + tag + ":r");
        BucketSpec hourly = BucketSpec.of(List.of(new Limit("hourly", 1, Refill.greedy(1, Duration.ofHours(1)))), 1);
        leaseStore().tryConsume(rate, hourly, 1); // empty

        List<ConsumeResult> results = leaseStore().tryConsume(List.of(Take.of(leases, FIVE, 1), Take.of(rate, hourly, 1)));

        assertThat(results.get(1).sufficient()).isFalse();
        assertThat(results.get(0).tokensTaken()).isFalse();
        assertThat(results.get(0).lease()).isZero();
        assertThat(free(leases)).isEqualTo(5);
    }

    @ParameterizedTest(name = "same slot: {0}")
    @ValueSource(booleans = {true, false})
    default void consumeRefusedByAFullLeaseSet_takesOnlyThePlansRefusalToken(boolean sameSlot) {
        String tag = UUID.randomUUID().toString();
        BucketKey leases = new BucketKey(sameSlot ? "quota-test:{" + tag + "}:l" : "quota-test:" + tag + ":l");
        BucketKey plan = new BucketKey(sameSlot ? "quota-test:{" + tag + "}:p" : "quota-test:" + tag + ":p");
        BucketSpec hourly = BucketSpec.of(List.of(new Limit("hourly", 100, Refill.greedy(100, Duration.ofHours(1)))), 1);
        for (int i = 0; i < 5; i++) {
            take(leases);
        }

        List<ConsumeResult> results = leaseStore().tryConsume(List.of(Take.of(plan, hourly, 10, 1), Take.of(leases, FIVE, 1)));

        assertThat(results.get(1).sufficient()).isFalse();
        assertThat(results.get(1).nanosToWait()).isEqualTo(TIMEOUT.toNanos());
        assertThat(leaseStore().peek(plan, hourly).remaining()).containsExactly(99);
    }

    @Test
    default void higherVersion_withFewerSlots_keepsTheLeasesHeld() {
        BucketKey key = key();
        for (int i = 0; i < 3; i++) {
            take(key);
        }
        BucketSpec four = BucketSpec.leases("transfers", 4, TIMEOUT, 2);

        assertThat(leaseStore().peek(key, four).remaining()).containsExactly(1);
        assertThat(leaseStore().tryConsume(key, four, 1).tokensTaken()).isTrue();
        assertThat(leaseStore().tryConsume(key, four, 1).tokensTaken()).isFalse();
    }

    @Test
    default void concurrentTakers_atFrozenTime_holdExactlyTheSlots() throws Exception {
        BucketKey key = key();
        int threads = 50;
        ExecutorService pool = Executors.newFixedThreadPool(16);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Boolean>> results = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            results.add(pool.submit(() -> {
                start.await();
                return take(key).tokensTaken();
            }));
        }
        start.countDown();
        int held = 0;
        for (Future<Boolean> f : results) {
            held += f.get(30, TimeUnit.SECONDS) ? 1 : 0;
        }
        pool.shutdown();

        assertThat(held).isEqualTo(5);
        assertThat(free(key)).isZero();
    }

    private ConsumeResult takeBy(BucketKey key, LeaseHolder holder) {
        return leaseStore().tryConsume(List.of(Take.of(key, FIVE, 1).heldBy(holder))).get(0);
    }

    @Test
    default void aTakeByAnInstanceKnowingAnotherDead_freesExactlyTheDeadOnesSlots_inTheSameCall() {
        BucketKey key = key();
        long dead = LeaseHolder.tagOf("dead-instance");
        long live = LeaseHolder.tagOf("live-instance");
        long taker = LeaseHolder.tagOf("taking-instance");
        for (int i = 0; i < 3; i++) {
            assertThat(takeBy(key, new LeaseHolder(dead, Set.of())).tokensTaken()).isTrue();
        }
        takeBy(key, new LeaseHolder(live, Set.of()));
        takeBy(key, new LeaseHolder(live, Set.of()));
        assertThat(takeBy(key, new LeaseHolder(taker, Set.of())).tokensTaken()).as("five held").isFalse();
        leaseClock().advance(Duration.ofSeconds(1));

        LeaseHolder knowing = new LeaseHolder(taker, Set.of(dead));
        ConsumeResult first = takeBy(key, knowing);

        assertThat(first.tokensTaken()).isTrue();
        assertThat(first.remaining()).as("the dead one's three freed, one taken").containsExactly(2);
        assertThat(takeBy(key, knowing).tokensTaken()).isTrue();
        assertThat(takeBy(key, knowing).tokensTaken()).isTrue();
        assertThat(takeBy(key, knowing).tokensTaken()).as("the live one's two still count").isFalse();
        assertThat(free(key)).isZero();
    }

    @Test
    default void leasesOfAnInstanceNotKnownDead_orTakenWithoutATag_areKeptUntilTheirDeadline() {
        BucketKey key = key();
        long live = LeaseHolder.tagOf("live-instance");
        takeBy(key, new LeaseHolder(live, Set.of()));
        takeBy(key, new LeaseHolder(live, Set.of()));
        take(key); // no holder: a single instance, or a take written before slots had holders
        take(key);
        take(key);
        LeaseHolder knowingOthersDead = new LeaseHolder(LeaseHolder.tagOf("taking-instance"),
                Set.of(LeaseHolder.tagOf("someone-else")));

        assertThat(takeBy(key, knowingOthersDead).tokensTaken()).isFalse();
        leaseClock().advance(TIMEOUT.minusNanos(1_000_000));
        assertThat(takeBy(key, knowingOthersDead).tokensTaken()).as("1 ms before the deadline").isFalse();
        leaseClock().advance(Duration.ofMillis(1));
        assertThat(free(key)).isEqualTo(5);
    }
}
