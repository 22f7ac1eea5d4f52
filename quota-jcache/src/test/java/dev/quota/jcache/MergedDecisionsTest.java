package dev.quota.jcache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quota.core.Limit;
import dev.quota.core.QuotaStoreException;
import dev.quota.core.Refill;
import dev.quota.core.internal.Bandwidths;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.testkit.MutableClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.cache.Cache;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * This JVM's decisions of one entry that arrive while a change of it is on its way go to the grid
 * together in the next change: counted on a real grid, with the first change held at the grid's door.
 */
class MergedDecisionsTest {

    @RegisterExtension
    static HazelcastGrid grid = HazelcastGrid.shared();

    private static final BucketSpec FIVE_PER_HOUR = BucketSpec.of(
            List.of(new Limit("hourly", 5, Refill.greedy(5, Duration.ofHours(1)))), 1);
    private static final int LATER = 8;

    private final MutableClock clock = MutableClock.at("2026-12-07T10:00:00Z");
    private final ExecutorService callers = Executors.newFixedThreadPool(LATER + 1);
    private final Cache<String, byte[]> cache = grid.cache(0, "merged-" + UUID.randomUUID());
    private final CountingCache counting = CountingCache.of(cache);
    private final CasBuckets cas = new CasBuckets(counting.cache(), new JCacheWriter(counting.cache()),
            CacheLifetime.of(counting.cache(), false), Bandwidths.timeMeter(clock), 1_000, 0);
    private final MergedDecisions merged = new MergedDecisions(cas);
    private final JCacheStore store = new JCacheStore(counting.cache(), JCacheStore.Update.COMPARE_AND_SWAP, merged,
            "merged", LeaseHolders.NONE);
    private final BucketKey key = new BucketKey("quota:{c.merged}:" + UUID.randomUUID());
    private final String entry = BucketEntry.entryKey(key.value());

    @AfterEach
    void stop() {
        callers.shutdownNow();
    }

    @Test
    void decisionsThatArriveWhileAChangeIsOnItsWay_goInOneChange_eachAllOrNothing_exactlyTheCapacity() throws Exception {
        assertThat(store.tryConsume(key, FIVE_PER_HOUR, 1).remaining()).containsExactly(4);
        counting.reset();
        CountingCache.Hold held = counting.holdNext("replace");

        Future<ConsumeResult> first = callers.submit(() -> store.tryConsume(key, FIVE_PER_HOUR, 1));
        held.reached.await();
        List<Future<ConsumeResult>> later = queuedBehindTheHeldChange(LATER);
        held.release();

        assertThat(first.get().tokensTaken()).isTrue();
        int admitted = admitted(later);
        assertThat(admitted).as("3 tokens were left after the first change").isEqualTo(3);
        assertThat(counting.calls()).as("the first change, then one carrying all 8")
                .containsExactlyInAnyOrderEntriesOf(Map.of("get", 2, "replace", 2));
        assertThat(store.peek(key, FIVE_PER_HOUR).remaining()).containsExactly(0);
        assertThat(merged.entriesInUse()).as("nothing kept once no decision waits").isZero();
    }

    @Test
    void aChangeThatFails_failsEveryDecisionItCarried_andTheNextChangeDecidesAgain() throws Exception {
        assertThat(store.tryConsume(key, FIVE_PER_HOUR, 1).remaining()).containsExactly(4);
        CountingCache.Hold first = counting.holdNext("replace");
        Future<ConsumeResult> leader = callers.submit(() -> store.tryConsume(key, FIVE_PER_HOUR, 1));
        first.reached.await();
        List<Future<ConsumeResult>> carried = queuedBehindTheHeldChange(3);
        CountingCache.Hold second = counting.holdNext("replace");
        first.release();
        second.reached.await(); // the change carrying the 3 is at the grid's door
        second.fail(new IllegalStateException("grid unreachable"));

        assertThat(leader.get().tokensTaken()).isTrue();
        for (Future<ConsumeResult> f : carried) {
            assertThatThrownBy(f::get).cause().isInstanceOf(QuotaStoreException.class)
                    .rootCause().hasMessage("grid unreachable");
        }
        assertThat(store.peek(key, FIVE_PER_HOUR).remaining()).as("the failed change took nothing").containsExactly(3);
        assertThat(store.tryConsume(key, FIVE_PER_HOUR, 1).remaining()).containsExactly(2);
        assertThat(merged.entriesInUse()).isZero();
    }

    @Test
    void aChangeThatLosesARace_takesOnTheDecisionsThatCameMeanwhile_inItsNextAttempt() throws Exception {
        assertThat(store.tryConsume(key, FIVE_PER_HOUR, 1).remaining()).containsExactly(4);
        counting.reset();
        CountingCache.Hold held = counting.holdNext("replace");
        Future<ConsumeResult> leader = callers.submit(() -> store.tryConsume(key, FIVE_PER_HOUR, 1));
        held.reached.await();
        // another JVM's store writes the entry between the leader's read and its write
        try (JCacheStore other = JCacheStore.builder(cache).clock(clock).build()) {
            assertThat(other.tryConsume(key, FIVE_PER_HOUR, 1).remaining()).containsExactly(3);
        }
        List<Future<ConsumeResult>> later = queuedBehindTheHeldChange(3);
        held.release();

        assertThat(leader.get().tokensTaken()).as("first in the change").isTrue();
        int admitted = admitted(later);
        assertThat(admitted).as("3 left when the leader read again: its own, then 2 of the 3").isEqualTo(2);
        assertThat(counting.calls()).as("the lost attempt, then one carrying all 4")
                .containsExactlyInAnyOrderEntriesOf(Map.of("get", 2, "replace", 2));
        assertThat(store.peek(key, FIVE_PER_HOUR).remaining()).containsExactly(0);
    }

    /** {@code n} decisions of one token each, once every one of them waits behind the change on its way. */
    private List<Future<ConsumeResult>> queuedBehindTheHeldChange(int n) {
        List<Future<ConsumeResult>> queued = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            queued.add(callers.submit(() -> store.tryConsume(key, FIVE_PER_HOUR, 1)));
        }
        while (merged.waiting(entry) < n) {
            Thread.onSpinWait();
        }
        return queued;
    }

    private static int admitted(List<Future<ConsumeResult>> decisions) throws Exception {
        int admitted = 0;
        for (Future<ConsumeResult> f : decisions) {
            admitted += f.get().tokensTaken() ? 1 : 0;
        }
        return admitted;
    }
}
