package dev.quota.core.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Limit;
import dev.quota.core.Refill;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.QuotaStore;
import dev.quota.core.spi.Take;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
 * Extra tokens ({@link Take#extra()}, what a leased share of a hot bucket is taken with) as every
 * store must take them: part of {@link QuotaStoreContract}, so it runs against every store that
 * runs the contract. The clock is frozen: no refill between the calls.
 */
public interface ExtraTokensStoreContract {

    /** The store under test. */
    QuotaStore extraStore();

    private static BucketSpec hourly(long capacity) {
        return BucketSpec.of(List.of(new Limit("burst", capacity, Refill.greedy(capacity, Duration.ofHours(1)))), 1);
    }

    private static List<BucketKey> keys(int n, boolean sameSlot) {
        String tag = UUID.randomUUID().toString();
        List<BucketKey> keys = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            keys.add(new BucketKey(sameSlot ? "quota-test:{" + tag + "}:" + i : "quota-test:" + tag + ":" + i));
        }
        return keys;
    }

    private long left(BucketKey key, BucketSpec spec) {
        return extraStore().peek(key, spec).remaining()[0];
    }

    @Test
    default void extra_onAnAdmittedConsume_takesWhatWasAskedFor_andSaysSo() {
        BucketKey key = keys(1, true).get(0);

        ConsumeResult result = extraStore().tryConsume(List.of(Take.of(key, hourly(100), 1).withExtra(20))).get(0);

        assertThat(result.tokensTaken()).isTrue();
        assertThat(result.extraTaken()).isEqualTo(20);
        assertThat(result.remaining()).containsExactly(79);
        assertThat(left(key, hourly(100))).isEqualTo(79);
    }

    @Test
    default void extra_pastWhatTheBucketHolds_takesTheRest_andNeverRefuses() {
        BucketKey key = keys(1, true).get(0);
        extraStore().tryConsume(key, hourly(10), 7); // 3 left

        ConsumeResult result = extraStore().tryConsume(List.of(Take.of(key, hourly(10), 1).withExtra(50))).get(0);

        assertThat(result.tokensTaken()).isTrue();
        assertThat(result.sufficient()).isTrue();
        assertThat(result.extraTaken()).isEqualTo(2);
        assertThat(left(key, hourly(10))).isZero();
    }

    @Test
    default void extra_onAnEmptyBucket_isNotTaken_andTheConsumeIsRefusedForItsOwnTokens() {
        BucketKey key = keys(1, true).get(0);
        extraStore().tryConsume(key, hourly(10), 10);

        ConsumeResult result = extraStore().tryConsume(List.of(Take.of(key, hourly(10), 1).withExtra(5))).get(0);

        assertThat(result.tokensTaken()).isFalse();
        assertThat(result.extraTaken()).isZero();
        assertThat(left(key, hourly(10))).isZero();
    }

    @ParameterizedTest(name = "same slot: {0}")
    @ValueSource(booleans = {true, false})
    default void extra_onAConsumeRefusedByAnotherBucket_takesNoExtra_andOnlyTheRefusalTokens(boolean sameSlot) {
        List<BucketKey> k = keys(3, sameSlot);
        extraStore().tryConsume(k.get(2), hourly(5), 5); // the rule's bucket is empty

        List<ConsumeResult> results = extraStore().tryConsume(List.of(Take.of(k.get(0), hourly(20), 2, 1).withExtra(10),
                Take.of(k.get(1), hourly(50), 1).withExtra(10), Take.of(k.get(2), hourly(5), 1)));

        assertThat(results).extracting(ConsumeResult::extraTaken).containsExactly(0L, 0L, 0L);
        assertThat(left(k.get(0), hourly(20))).as("the refusal token only").isEqualTo(19);
        assertThat(left(k.get(1), hourly(50))).as("nothing: refused, not charged").isEqualTo(50);
        assertThat(left(k.get(2), hourly(5))).isZero();
    }

    @ParameterizedTest(name = "same slot: {0}")
    @ValueSource(booleans = {true, false})
    default void extra_onAnAdmittedConsumeOfSeveralBuckets_isTakenWhereAskedOnly(boolean sameSlot) {
        List<BucketKey> k = keys(3, sameSlot);

        List<ConsumeResult> results = extraStore().tryConsume(List.of(Take.of(k.get(0), hourly(20), 2, 1),
                Take.of(k.get(1), hourly(50), 1).withExtra(10), Take.of(k.get(2), hourly(5), 1)));

        assertThat(results).extracting(ConsumeResult::extraTaken).containsExactly(0L, 10L, 0L);
        assertThat(left(k.get(0), hourly(20))).isEqualTo(18);
        assertThat(left(k.get(1), hourly(50))).isEqualTo(39);
        assertThat(left(k.get(2), hourly(5))).isEqualTo(4);
    }

    @Test
    default void extra_withAShadowTakeLacking_isStillTaken_forTheConsumeIsAdmitted() {
        List<BucketKey> k = keys(2, true);
        extraStore().tryConsume(k.get(1), hourly(5), 5); // the shadow bucket is empty

        List<ConsumeResult> results = extraStore().tryConsume(List.of(Take.of(k.get(0), hourly(50), 1).withExtra(10),
                Take.shadow(k.get(1), hourly(5), 1)));

        assertThat(results.get(0).extraTaken()).isEqualTo(10);
        assertThat(left(k.get(0), hourly(50))).isEqualTo(39);
    }

    @Test
    default void concurrentConsumersAskingExtra_atFrozenTime_takeExactlyTheCapacity_betweenAdmittedAndExtra()
            throws Exception {
        BucketKey key = keys(1, true).get(0);
        BucketSpec spec = hourly(100);
        int callers = 64;
        ExecutorService pool = Executors.newFixedThreadPool(16);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<ConsumeResult>> results = new ArrayList<>();
        for (int i = 0; i < callers; i++) {
            results.add(pool.submit(() -> {
                start.await();
                return extraStore().tryConsume(List.of(Take.of(key, spec, 1).withExtra(7))).get(0);
            }));
        }
        start.countDown();
        long admitted = 0;
        long extra = 0;
        for (Future<ConsumeResult> f : results) {
            ConsumeResult result = f.get(60, TimeUnit.SECONDS);
            admitted += result.tokensTaken() ? 1 : 0;
            extra += result.extraTaken();
        }
        pool.shutdown();

        assertThat(admitted + extra).as("every token taken once, none twice").isEqualTo(100);
        assertThat(admitted).as("each admitted caller asked 7 extra: 100 = 12 x 8 + 4").isEqualTo(13);
        assertThat(left(key, spec)).isZero();
    }
}
