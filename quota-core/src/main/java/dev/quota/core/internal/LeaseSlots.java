package dev.quota.core.internal;

import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.LeaseHolder;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.BucketState;
import io.github.bucket4j.BucketState64BitsInteger;
import io.github.bucket4j.distributed.remote.RemoteBucketState;
import io.github.bucket4j.distributed.remote.RemoteStat;
import io.github.bucket4j.distributed.serialization.Scope;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;

/**
 * The slots of a lease set ({@link BucketSpec#leases()}), read from and written to a bucket state.
 *
 * <p>The state is Bucket4j's own: one bandwidth per slot, capacity 1, one token back per lease
 * timeout, by interval. A free slot holds its token; a held slot holds none and was last refilled
 * when its lease was taken, so Bucket4j's own arithmetic gives it back at the deadline, and a
 * store's expiry (time to full) outlives every lease held. The words are read and written through
 * Bucket4j's JSON-compatible snapshot, its public form of the state's words.
 *
 * <p>A slot's deadline is its lease's identity: giving back a lease frees the held slot with that
 * deadline. A lease that expired and whose slot was taken again has another deadline, so a late
 * give-back frees nothing: never more leases held than slots.
 *
 * <p>A held slot also records its holder ({@link LeaseHolder#tag()}) in its third word, Bucket4j's
 * rounding error, which an interval refill of capacity 1 never reads before the slot's deadline
 * (the refill waits for a whole interval, and then the slot is full again whatever the word holds).
 * The stored form of that word: 0 for no holder (every state written before slots had holders,
 * and a slot taken without a registry), {@link #TAGGED} with the tag in its low 56 bits for
 * version 1. A word of any other form reads as no holder: such a slot is kept until its deadline.
 * A take by a holder that knows the tag dead frees the slot ({@link #freeHeldByDead}).
 */
public final class LeaseSlots {

    /** Words per slot in the state: last refill, tokens, rounding error (the holder). */
    private static final int WORDS = 3;
    /** The top byte of a holder word in stored form version 1: the tag is in the low 56 bits. */
    static final long TAGGED = 1L << 56;

    private final BucketConfiguration configuration;
    private final long timeoutNanos;
    private final long version;
    /** The deadline of each slot's lease, 0 for a free slot. */
    private final long[] deadlines;
    /** The tag of each held slot's holder, 0 for a free slot or one held by nobody known. */
    private final long[] holders;

    private LeaseSlots(BucketConfiguration configuration, long timeoutNanos, long version, long[] deadlines,
                       long[] holders) {
        this.configuration = configuration;
        this.timeoutNanos = timeoutNanos;
        this.version = version;
        this.deadlines = deadlines;
        this.holders = holders;
    }

    /**
     * The slots at {@code nowNanos}: those of the stored state (null: none yet), in the spec's
     * shape, unless the state was written by a newer config (another instance reloaded first): then
     * in its own. A lease past its deadline is free. Going to a spec with fewer slots keeps the
     * leases that end last; one with a new timeout keeps every deadline as it was.
     */
    public static LeaseSlots of(@Nullable RemoteBucketState state, BucketSpec spec, long nowNanos) {
        BucketConfiguration specConfiguration = Bandwidths.configuration(spec);
        long[][] stored = state == null ? new long[][] {new long[0], new long[0]} : storedSlots(state, nowNanos);
        long[] storedDeadlines = stored[0];
        long[] storedHolders = stored[1];
        Long storedVersion = state == null ? null : state.getConfigurationVersion();
        if (state != null && storedVersion != null && storedVersion > spec.version() && storedDeadlines.length > 0) {
            BucketConfiguration newer = state.getConfiguration();
            return new LeaseSlots(newer, newer.getBandwidths()[0].getRefillPeriodNanos(), storedVersion,
                    storedDeadlines, storedHolders);
        }
        int n = specConfiguration.getBandwidths().length;
        long[] deadlines;
        long[] holders;
        if (storedDeadlines.length == n) {
            deadlines = storedDeadlines;
            holders = storedHolders;
        } else {
            // the held slots by deadline, the last ending first: those are kept when there are fewer slots
            Integer[] held = IntStream.range(0, storedDeadlines.length).filter(i -> storedDeadlines[i] != 0).boxed()
                    .sorted(Comparator.comparingLong((Integer i) -> storedDeadlines[i]).reversed())
                    .toArray(Integer[]::new);
            deadlines = new long[n];
            holders = new long[n];
            for (int i = 0; i < Math.min(n, held.length); i++) {
                deadlines[i] = storedDeadlines[held[i]];
                holders[i] = storedHolders[held[i]];
            }
        }
        return new LeaseSlots(specConfiguration, spec.leaseTimeout().toNanos(), spec.version(), deadlines, holders);
    }

    /**
     * Frees every slot held by an instance {@code holder} knows dead ({@link LeaseHolder#heldByDead}),
     * before their deadline: what a take does first, in the same atomic step.
     *
     * @return the number of slots freed
     */
    public int freeHeldByDead(LeaseHolder holder) {
        if (holder.deadTags().isEmpty()) {
            return 0;
        }
        int freed = 0;
        for (int i = 0; i < deadlines.length; i++) {
            if (deadlines[i] != 0 && holder.heldByDead(holders[i])) {
                deadlines[i] = 0;
                holders[i] = 0;
                freed++;
            }
        }
        return freed;
    }

    /** The tag recorded for each slot, 0 for a free one or one without a holder: for tests. */
    long[] holders() {
        return holders.clone();
    }

    /** The number of free slots. */
    public long free() {
        long free = 0;
        for (long deadline : deadlines) {
            if (deadline == 0) {
                free++;
            }
        }
        return free;
    }

    /** Nanoseconds from {@code nowNanos} until the first held lease ends, 0 when a slot is free. */
    public long nanosToFirstFree(long nowNanos) {
        long first = Long.MAX_VALUE;
        for (long deadline : deadlines) {
            if (deadline == 0) {
                return 0;
            }
            first = Math.min(first, deadline);
        }
        return Math.max(1, first - nowNanos);
    }

    /** Nanoseconds from {@code nowNanos} until the oldest held lease ends, 0 when none is held. */
    long nanosToOldestEnd(long nowNanos) {
        long first = Long.MAX_VALUE;
        for (long deadline : deadlines) {
            if (deadline != 0) {
                first = Math.min(first, deadline);
            }
        }
        return first == Long.MAX_VALUE ? 0 : Math.max(1, first - nowNanos);
    }

    /** Nanoseconds from {@code nowNanos} until every lease has ended. */
    public long nanosToAllFree(long nowNanos) {
        long last = 0;
        for (long deadline : deadlines) {
            last = Math.max(last, deadline);
        }
        return last == 0 ? 0 : last - nowNanos;
    }

    /**
     * Holds {@code count} free slots until {@code nowNanos} + the lease timeout, recording
     * {@code tag} (0: none) as their holder.
     *
     * @return the deadline of the leases taken
     * @throws IllegalStateException if fewer slots are free
     */
    public long take(long count, long tag, long nowNanos) {
        long deadline = nowNanos + timeoutNanos;
        long left = count;
        for (int i = 0; i < deadlines.length && left > 0; i++) {
            if (deadlines[i] == 0) {
                deadlines[i] = deadline;
                holders[i] = tag & LeaseHolder.TAG_MASK;
                left--;
            }
        }
        if (left > 0) {
            throw new IllegalStateException("took " + (count - left) + " of " + count + " leases");
        }
        return deadline;
    }

    /** Frees the slot held until {@code deadline}, if one is; a lease that ended already holds none. */
    public void release(long deadline) {
        for (int i = 0; i < deadlines.length; i++) {
            if (deadlines[i] == deadline && deadline != 0) {
                deadlines[i] = 0;
                holders[i] = 0;
                return;
            }
        }
    }

    /** The slots as a bucket state. */
    public RemoteBucketState state() {
        long[] words = new long[deadlines.length * WORDS];
        for (int i = 0; i < deadlines.length; i++) {
            boolean held = deadlines[i] != 0;
            // a held slot was refilled last when its lease was taken: one interval later it is free
            words[i * WORDS] = held ? deadlines[i] - timeoutNanos : 0;
            words[i * WORDS + 1] = held ? 0 : 1;
            words[i * WORDS + 2] = held && holders[i] != 0 ? TAGGED | holders[i] : 0;
        }
        Map<String, Object> snapshot = new HashMap<>();
        snapshot.put("version", 1);
        snapshot.put("stateData", words);
        try {
            snapshot.put("configuration", BucketConfiguration.SERIALIZATION_HANDLE.toJsonCompatibleSnapshot(
                    configuration, StateWire.WIRE_VERSION, Scope.PERSISTED_STATE));
            BucketState state = BucketState64BitsInteger.SERIALIZATION_HANDLE.fromJsonCompatibleSnapshot(snapshot);
            state.setConfiguration(configuration);
            return new RemoteBucketState(state, new RemoteStat(0), version);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a snapshot in memory does not fail
        }
    }

    /**
     * The deadline of each slot of a stored state, 0 for a free one (holding its token, or past its
     * deadline), and the tag of each held slot's holder, 0 for none; none when the state is not a
     * lease set's (it then starts empty).
     */
    private static long[][] storedSlots(RemoteBucketState remote, long nowNanos) {
        long[][] none = {new long[0], new long[0]};
        Bandwidth[] bandwidths = remote.getConfiguration().getBandwidths();
        BucketState state = remote.getState();
        if (!(state instanceof BucketState64BitsInteger words)) {
            return none;
        }
        for (Bandwidth bandwidth : bandwidths) {
            if (bandwidth.getCapacity() != 1 || !bandwidth.isRefillIntervally() || bandwidth.getRefillTokens() != 1) {
                return none;
            }
        }
        long[] data;
        try {
            data = BucketState64BitsInteger.SERIALIZATION_HANDLE.readLongArray(
                    BucketState64BitsInteger.SERIALIZATION_HANDLE.toJsonCompatibleSnapshot(words, StateWire.WIRE_VERSION,
                            Scope.PERSISTED_STATE), "stateData");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        long[] deadlines = new long[bandwidths.length];
        long[] holders = new long[bandwidths.length];
        for (int i = 0; i < bandwidths.length; i++) {
            if (data[i * WORDS + 1] < 1) {
                long deadline = data[i * WORDS] + bandwidths[i].getRefillPeriodNanos();
                if (deadline > nowNanos) {
                    deadlines[i] = deadline;
                    long word = data[i * WORDS + 2];
                    // version 1 of the holder word; 0 (no holder, or written before) and any other form: none
                    holders[i] = (word & ~LeaseHolder.TAG_MASK) == TAGGED ? word & LeaseHolder.TAG_MASK : 0;
                }
            }
        }
        return new long[][] {deadlines, holders};
    }
}
