package dev.quota.redis;

import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.remote.RemoteBucketState;
import org.jspecify.annotations.Nullable;

/**
 * One key in one round ({@link CasRound}): what Redis is assumed to hold, and the state the jobs
 * have computed so far. The combiner's alone. A cell a script carried is read until that script is
 * settled, and then made over for a key of a later round ({@link CasRound#recycle}): a key a
 * decision touches costs no cell of its own.
 */
final class Cell {
    String key;
    byte @Nullable [] expected;
    @Nullable RemoteBucketState state;
    boolean knownBefore;
    long confirmedNanos;
    /** The script of this instance in flight whose writes the state is (pipelined), else null. */
    @Nullable Flight behind;
    boolean dirty;
    /**
     * Whether {@link #state} is this cell's alone (parsed for this round from remembered bytes):
     * a job may then take its tokens from it in place instead of from a copy
     * ({@link dev.quota.core.spi.BucketMath#decideInPlace}). A state written to the cell is the
     * cell's alone too, until its script is sent (what the script leaves is then shared with the
     * rounds pipelined behind it, each of which makes a cell of its own that does not own it).
     */
    boolean owned;
    /** Whether a job sent this round touches the key: the round's script carries it. */
    boolean carried;
    /** The expiration of the last job that wrote the cell this round. */
    @Nullable ExpirationAfterWriteStrategy ttl;
    /**
     * What the round's script writes to the key (null: it leaves it as it is), and for how long in
     * milliseconds (0: no expiry): set when the script is sent ({@link ScriptFlight#send}), read
     * until it is settled.
     */
    byte @Nullable [] written;
    long ttlMillis;

    Cell(String key, byte @Nullable [] expected, @Nullable RemoteBucketState state, boolean knownBefore,
         long confirmedNanos) {
        this(key, expected, state, knownBefore, confirmedNanos, null);
    }

    Cell(String key, byte @Nullable [] expected, @Nullable RemoteBucketState state, boolean knownBefore,
         long confirmedNanos, @Nullable Flight behind) {
        this.key = key;
        set(key, expected, state, knownBefore, confirmedNanos, behind);
    }

    /** Makes this cell over, as new, for {@code key}. */
    Cell set(String key, byte @Nullable [] expected, @Nullable RemoteBucketState state, boolean knownBefore,
             long confirmedNanos, @Nullable Flight behind) {
        this.key = key;
        this.expected = expected;
        this.state = state;
        this.knownBefore = knownBefore;
        this.confirmedNanos = confirmedNanos;
        this.behind = behind;
        this.dirty = false;
        this.owned = false;
        this.carried = false;
        this.ttl = null;
        this.written = null;
        this.ttlMillis = 0;
        return this;
    }

    /** Lets go of what it refers to, while it waits to be made over. */
    void clear() {
        expected = null;
        state = null;
        owned = false;
        behind = null;
        ttl = null;
        written = null;
    }

    /** What the key holds once the round's script ran and wrote (null: no key). */
    byte @Nullable [] leaves() {
        return written != null ? written : expected;
    }

    /** A job wrote {@code after}, to expire by {@code strategy}. */
    void write(RemoteBucketState after, ExpirationAfterWriteStrategy strategy) {
        state = after;
        dirty = true;
        ttl = strategy;
    }
}
