package dev.quota.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.spi.BucketMath;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.LeaseHolder;
import dev.quota.testkit.MutableClock;
import io.github.bucket4j.distributed.remote.RemoteBucketState;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The holder a lease slot records beside its deadline, and the slots a take frees because their
 * holder is known dead: deterministic, on the stored form, with a controllable clock.
 */
class LeaseSlotsHolderTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final BucketSpec FIVE = BucketSpec.leases("transfers", 5, TIMEOUT, 1);
    private static final long A = LeaseHolder.tagOf("instance-a");
    private static final long B = LeaseHolder.tagOf("instance-b");
    private static final LeaseHolder BY_A = new LeaseHolder(A, Set.of());
    private static final LeaseHolder BY_B_KNOWING_A_DEAD = new LeaseHolder(B, Set.of(A));

    /**
     * A lease set of five slots as the library stored it before slots had holders: two held, taken
     * at 1,000 s and 1,001 s (nanoTime scale) with a 60 s timeout, so they end at 1,060 s and 1,061 s.
     */
    private static final String WRITTEN_BEFORE_HOLDERS = "00000002000000010000000500000001000000000000000100000000000000010000000df84758000000000000000001"
            + "018000000000000000000100013000000001000000000000000100000000000000010000000df8475800000000000000"
            + "0001018000000000000000000100013100000001000000000000000100000000000000010000000df847580000000000"
            + "00000001018000000000000000000100013200000001000000000000000100000000000000010000000df84758000000"
            + "000000000001018000000000000000000100013300000001000000000000000100000000000000010000000df8475800"
            + "0000000000000001018000000000000000000100013400000003000000010000000f000000e8d4a51000000000000000"
            + "00000000000000000000000000e9103fda00000000000000000000000000000000000000000000000000000000000000"
            + "000100000000000000000000000000000000000000000000000100000000000000000000000000000000000000000000"
            + "00010000000000000000000000010000000000000000010000000000000001";
    private static final long OLD_TAKEN = 1_000_000_000_000L;

    private final MutableClock clock = MutableClock.at(Instant.parse("2026-12-03T10:00:00Z"));

    /** The store's clock reading: nanoseconds since the epoch. */
    private long now() {
        Instant now = clock.instant();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    private RemoteBucketState take(RemoteBucketState state, LeaseHolder holder) {
        BucketMath.Step step = BucketArithmetic.consume(state, FIVE, 1, holder, now());
        assertThat(step.result().tokensTaken()).isTrue();
        return Objects.requireNonNull(step.after());
    }

    private RemoteBucketState stored(RemoteBucketState state) {
        return BucketMath.deserialize(BucketMath.serialize(state)); // what a store reads back
    }

    @Test
    void aSlotTaken_recordsItsHoldersTag_inTheStoredForm() {
        RemoteBucketState state = stored(take(take(null, BY_A), LeaseHolder.NONE));

        long[] holders = LeaseSlots.of(state, FIVE, now()).holders();

        assertThat(holders).containsExactly(A, 0, 0, 0, 0);
    }

    @Test
    void aTakeByAHolderKnowingADead_freesEveryOneOfAsSlots_andTakesOne() {
        RemoteBucketState state = null;
        for (int i = 0; i < 3; i++) {
            state = take(state, BY_A);
        }
        state = take(state, new LeaseHolder(B, Set.of()));
        clock.advance(Duration.ofSeconds(5));

        BucketMath.Step step = BucketArithmetic.consume(stored(state), FIVE, 1, BY_B_KNOWING_A_DEAD, now());

        assertThat(step.result().tokensTaken()).isTrue();
        assertThat(step.result().remaining()).as("5 slots, B's two held").containsExactly(3);
        assertThat(LeaseSlots.of(step.after(), FIVE, now()).holders()).containsExactlyInAnyOrder(B, B, 0, 0, 0);
    }

    @Test
    void aLiveHoldersSlots_andSlotsWithoutAHolder_areKeptUntilTheirDeadline() {
        RemoteBucketState state = take(null, new LeaseHolder(B, Set.of()));
        state = take(state, LeaseHolder.NONE);
        for (int i = 0; i < 3; i++) {
            state = take(state, new LeaseHolder(LeaseHolder.tagOf("instance-c"), Set.of()));
        }
        LeaseHolder knowingOthersDead = new LeaseHolder(A, Set.of(LeaseHolder.tagOf("instance-d"), 12345L));

        BucketMath.Step full = BucketArithmetic.consume(stored(state), FIVE, 1, knowingOthersDead, now());

        assertThat(full.result().tokensTaken()).as("nobody holding a slot is known dead").isFalse();
        assertThat(full.result().nanosToWait()).isEqualTo(TIMEOUT.toNanos());
        clock.advance(TIMEOUT);
        assertThat(BucketArithmetic.consume(stored(state), FIVE, 5, knowingOthersDead, now()).result().tokensTaken())
                .as("all five free at their deadline").isTrue();
    }

    @Test
    void aRefusedTake_writesNothing_soTheDeadHoldersSlotsAreFreedAgainByTheNextTake() {
        RemoteBucketState state = take(null, BY_A);
        LeaseHolder b = new LeaseHolder(B, Set.of());
        for (int i = 0; i < 4; i++) {
            state = take(state, b);
        }

        BucketMath.Step twoMore = BucketArithmetic.consume(state, FIVE, 2, BY_B_KNOWING_A_DEAD, now());
        BucketMath.Step one = BucketArithmetic.consume(state, FIVE, 1, BY_B_KNOWING_A_DEAD, now());

        assertThat(twoMore.result().tokensTaken()).as("A's one slot is not two").isFalse();
        assertThat(twoMore.after()).isNull();
        assertThat(one.result().tokensTaken()).isTrue();
        assertThat(one.result().remaining()).containsExactly(0);
    }

    @Test
    void aGiveBackOfAFreedLease_freesNothing_whenItsSlotWasTakenAgain() {
        BucketSpec single = BucketSpec.leases("export", 1, TIMEOUT, 1);
        BucketMath.Step byA = BucketArithmetic.consume(null, single, 1, BY_A, now());
        long aLease = byA.result().lease();
        clock.advance(Duration.ofMillis(1));
        BucketMath.Step byB = BucketArithmetic.consume(byA.after(), single, 1, BY_B_KNOWING_A_DEAD, now());
        assertThat(byB.result().lease()).isNotEqualTo(aLease);

        RemoteBucketState afterLateGiveBack = BucketArithmetic.releaseLease(byB.after(), single, aLease, now());

        assertThat(BucketArithmetic.peek(afterLateGiveBack, single, now()).remaining()).as("B still runs")
                .containsExactly(0);
    }

    @Test
    void aStateWrittenBeforeSlotsHadHolders_readsAsBefore_andNoDeadSetFreesIt() {
        RemoteBucketState old = BucketMath.deserialize(HexFormat.of().parseHex(WRITTEN_BEFORE_HOLDERS));
        long at = OLD_TAKEN + Duration.ofSeconds(30).toNanos();

        LeaseSlots slots = LeaseSlots.of(old, FIVE, at);
        BucketMath.Step step = BucketArithmetic.consume(old, FIVE, 3, new LeaseHolder(B, Set.of(A, 1L, 2L)), at);

        assertThat(slots.free()).isEqualTo(3);
        assertThat(slots.holders()).containsExactly(0, 0, 0, 0, 0);
        assertThat(slots.nanosToAllFree(at)).isEqualTo(Duration.ofSeconds(31).toNanos());
        assertThat(step.result().tokensTaken()).isTrue();
        assertThat(step.result().remaining()).containsExactly(0);
        assertThat(BucketArithmetic.consume(step.after(), FIVE, 1, new LeaseHolder(B, Set.of(A)),
                OLD_TAKEN + TIMEOUT.toNanos() - 1).result().tokensTaken())
                .as("the old leases still held a nanosecond before their deadline").isFalse();
        assertThat(BucketArithmetic.consume(step.after(), FIVE, 1, LeaseHolder.NONE, OLD_TAKEN + TIMEOUT.toNanos())
                .result().remaining()).as("the first old lease ends at its deadline").containsExactly(0);
    }

    @Test
    void aHolderWordOfAnUnknownForm_readsAsNoHolder_keptUntilItsDeadline() {
        RemoteBucketState state = take(null, BY_A);
        RemoteBucketState unknown = withHolderWord(state, 0, (2L << 56) | A);

        LeaseSlots slots = LeaseSlots.of(unknown, FIVE, now());
        slots.freeHeldByDead(new LeaseHolder(B, Set.of(A)));

        assertThat(slots.free()).isEqualTo(4);
    }

    @Test
    void bucket4jsRefill_beforeTheDeadline_neitherFreesATaggedSlotNorTouchesItsHolder() {
        RemoteBucketState tagged = take(null, BY_A);
        RemoteBucketState untagged = take(null, LeaseHolder.NONE);
        for (long seconds : new long[] {0, 1, 30, 59}) {
            long at = now() + Duration.ofSeconds(seconds).toNanos();
            RemoteBucketState refilled = tagged.copy();
            refilled.refillAllBandwidth(at);
            RemoteBucketState plain = untagged.copy();
            plain.refillAllBandwidth(at);

            assertThat(refilled.getState().getCurrentSize(0)).as("after %d s", seconds).isZero();
            assertThat(refilled.calculateFullRefillingTime(at)).isEqualTo(plain.calculateFullRefillingTime(at));
            assertThat(LeaseSlots.of(refilled, FIVE, at).holders()[0]).isEqualTo(A);
        }
        long deadline = now() + TIMEOUT.toNanos();
        RemoteBucketState due = tagged.copy();
        due.refillAllBandwidth(deadline);
        assertThat(due.getState().getCurrentSize(0)).as("at the deadline").isEqualTo(1);
    }

    @Test
    void fewerSlotsAfterAReload_keepTheLastEndingLeases_withTheirHolders() {
        RemoteBucketState state = take(null, BY_A);
        clock.advance(Duration.ofSeconds(1));
        state = take(state, new LeaseHolder(B, Set.of()));
        clock.advance(Duration.ofSeconds(1));
        state = take(state, LeaseHolder.NONE);
        BucketSpec two = BucketSpec.leases("transfers", 2, TIMEOUT, 2);

        LeaseSlots slots = LeaseSlots.of(stored(state), two, now());

        assertThat(slots.holders()).containsExactly(0, B);
    }

    @Test
    void tags_areTheSameForAnId_nonZero_andWithin56Bits() {
        assertThat(LeaseHolder.tagOf("instance-a")).isEqualTo(A).isNotZero();
        assertThat(A).isNotEqualTo(B);
        assertThat(A & ~LeaseHolder.TAG_MASK).isZero();
    }

    @Test
    void aTakeWithoutAHolder_answersAsBefore() {
        ConsumeResult plain = BucketMath.consume(null, FIVE, 1, now()).result();
        ConsumeResult none = BucketArithmetic.consume(null, FIVE, 1, LeaseHolder.NONE, now()).result();

        assertThat(none.tokensTaken()).isEqualTo(plain.tokensTaken());
        assertThat(none.remaining()).isEqualTo(plain.remaining());
        assertThat(none.nanosToFull()).isEqualTo(plain.nanosToFull());
        assertThat(none.lease()).isEqualTo(plain.lease());
    }

    /** {@code state} with the holder word of slot {@code slot} replaced, as another writer might leave it. */
    private static RemoteBucketState withHolderWord(RemoteBucketState state, int slot, long word) {
        RemoteBucketState copy = state.copy();
        io.github.bucket4j.BucketState64BitsInteger words = (io.github.bucket4j.BucketState64BitsInteger) copy.getState();
        try {
            java.util.Map<String, Object> snapshot = io.github.bucket4j.BucketState64BitsInteger.SERIALIZATION_HANDLE
                    .toJsonCompatibleSnapshot(words, StateWire.WIRE_VERSION,
                            io.github.bucket4j.distributed.serialization.Scope.PERSISTED_STATE);
            long[] data = io.github.bucket4j.BucketState64BitsInteger.SERIALIZATION_HANDLE.readLongArray(snapshot,
                    "stateData");
            data[slot * 3 + 2] = word;
            snapshot.put("stateData", data);
            io.github.bucket4j.BucketState replaced = io.github.bucket4j.BucketState64BitsInteger.SERIALIZATION_HANDLE
                    .fromJsonCompatibleSnapshot(snapshot);
            replaced.setConfiguration(copy.getConfiguration());
            return new RemoteBucketState(replaced, copy.getRemoteStat(), copy.getConfigurationVersion());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
