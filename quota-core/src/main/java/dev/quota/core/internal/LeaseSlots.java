package dev.quota.core.internal;

import dev.quota.core.spi.BucketSpec;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.BucketState;
import io.github.bucket4j.BucketState64BitsInteger;
import io.github.bucket4j.distributed.remote.RemoteBucketState;
import io.github.bucket4j.distributed.remote.RemoteStat;
import io.github.bucket4j.distributed.serialization.Scope;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
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
 */
public final class LeaseSlots {

    /** Words per slot in the state: last refill, tokens, rounding error. */
    private static final int WORDS = 3;

    private final BucketConfiguration configuration;
    private final long timeoutNanos;
    private final long version;
    /** The deadline of each slot's lease, 0 for a free slot. */
    private final long[] deadlines;

    private LeaseSlots(BucketConfiguration configuration, long timeoutNanos, long version, long[] deadlines) {
        this.configuration = configuration;
        this.timeoutNanos = timeoutNanos;
        this.version = version;
        this.deadlines = deadlines;
    }

    /**
     * The slots at {@code nowNanos}: those of the stored state (null: none yet), in the spec's
     * shape, unless the state was written by a newer config (another instance reloaded first): then
     * in its own. A lease past its deadline is free. Going to a spec with fewer slots keeps the
     * leases that end last; one with a new timeout keeps every deadline as it was.
     */
    public static LeaseSlots of(@Nullable RemoteBucketState state, BucketSpec spec, long nowNanos) {
        BucketConfiguration specConfiguration = Bandwidths.configuration(spec);
        long[] stored = state == null ? new long[0] : storedDeadlines(state, nowNanos);
        Long storedVersion = state == null ? null : state.getConfigurationVersion();
        if (state != null && storedVersion != null && storedVersion > spec.version() && stored.length > 0) {
            BucketConfiguration newer = state.getConfiguration();
            return new LeaseSlots(newer, newer.getBandwidths()[0].getRefillPeriodNanos(), storedVersion, stored);
        }
        int n = specConfiguration.getBandwidths().length;
        long[] deadlines;
        if (stored.length == n) {
            deadlines = stored;
        } else {
            long[] held = Arrays.stream(stored).filter(d -> d != 0).sorted().toArray();
            deadlines = new long[n];
            for (int i = 0; i < Math.min(n, held.length); i++) {
                deadlines[i] = held[held.length - 1 - i];
            }
        }
        return new LeaseSlots(specConfiguration, spec.leaseTimeout().toNanos(), spec.version(), deadlines);
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
     * Holds {@code count} free slots until {@code nowNanos} + the lease timeout.
     *
     * @return the deadline of the leases taken
     * @throws IllegalStateException if fewer slots are free
     */
    public long take(long count, long nowNanos) {
        long deadline = nowNanos + timeoutNanos;
        long left = count;
        for (int i = 0; i < deadlines.length && left > 0; i++) {
            if (deadlines[i] == 0) {
                deadlines[i] = deadline;
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
     * deadline); none when the state is not a lease set's (it then starts empty).
     */
    private static long[] storedDeadlines(RemoteBucketState remote, long nowNanos) {
        Bandwidth[] bandwidths = remote.getConfiguration().getBandwidths();
        BucketState state = remote.getState();
        if (!(state instanceof BucketState64BitsInteger words)) {
            return new long[0];
        }
        for (Bandwidth bandwidth : bandwidths) {
            if (bandwidth.getCapacity() != 1 || !bandwidth.isRefillIntervally() || bandwidth.getRefillTokens() != 1) {
                return new long[0];
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
        for (int i = 0; i < bandwidths.length; i++) {
            if (data[i * WORDS + 1] < 1) {
                long deadline = data[i * WORDS] + bandwidths[i].getRefillPeriodNanos();
                deadlines[i] = deadline > nowNanos ? deadline : 0;
            }
        }
        return deadlines;
    }
}
