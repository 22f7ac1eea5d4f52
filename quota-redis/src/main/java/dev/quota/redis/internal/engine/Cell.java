package dev.quota.redis.internal.engine;

import dev.quota.redis.internal.encoding.CasKey;
import dev.quota.redis.internal.encoding.StateDigest;
import dev.quota.redis.internal.encoding.StateSha1;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.remote.RemoteBucketState;
import org.jspecify.annotations.Nullable;

/**
 * One key in one round ({@link CasRound}): what Redis is assumed to hold, and the state the jobs
 * have computed so far; what the round's script is told of the key is the {@link CasKey} it
 * extends, all the encoding and the transport read of it. The combiner's alone. A cell a script
 * carried is read until that script is settled, and then made over for a key of a later round
 * ({@link CasRound#recycle}): a key a decision touches costs no cell of its own.
 *
 * <p>As a {@link StateSha1}, it is the SHA-1 of what its key holds once the round's script ran and
 * wrote, when it {@link #leavesKey}: what this instance remembers the key by once the script is
 * settled.
 */
public final class Cell extends CasKey implements StateSha1 {
    public @Nullable RemoteBucketState state;
    boolean knownBefore;
    long confirmedNanos;
    /** The script of this instance in flight whose writes the state is (pipelined), else null. */
    @Nullable Flight behind;
    public boolean dirty;
    /**
     * Whether {@link #state} is this cell's alone (parsed for this round from remembered bytes):
     * a job may then take its tokens from it in place instead of from a copy
     * ({@link dev.quota.core.internal.BucketArithmetic#decideOwned}). A state written to the cell is the
     * cell's alone too, until its script is sent (what the script leaves is then shared with the
     * rounds pipelined behind it, each of which makes a cell of its own that does not own it).
     */
    boolean owned;
    /** Whether a job sent this round touches the key: the round's script carries it. */
    boolean carried;
    /** The expiration of the last job that wrote the cell this round. */
    @Nullable ExpirationAfterWriteStrategy ttl;
    /** The SHA-1 of the new state the round's script writes, while it {@link #writes} ({@link #sending}). */
    long writtenHigh;
    long writtenMiddle;
    int writtenLow;

    /** A cell of {@code key} that expects {@code expected} (digested here; null: no key). */
    public Cell(String key, byte @Nullable [] expected, @Nullable RemoteBucketState state, boolean knownBefore,
         long confirmedNanos) {
        this(key, state, knownBefore, confirmedNanos, null);
        if (expected != null) {
            StateDigest digest = StateDigest.local().of(expected);
            expect(digest.high(), digest.middle(), digest.low());
        }
    }

    /** A cell of {@code key} that expects no key until told otherwise ({@link #expect}). */
    public Cell(String key, @Nullable RemoteBucketState state, boolean knownBefore, long confirmedNanos,
         @Nullable Flight behind) {
        super(key);
        set(key, state, knownBefore, confirmedNanos, behind);
    }

    /** Makes this cell over, as new, for {@code key}: expecting no key until told otherwise ({@link #expect}). */
    Cell set(String key, @Nullable RemoteBucketState state, boolean knownBefore, long confirmedNanos,
             @Nullable Flight behind) {
        this.key = key;
        this.expects = false;
        this.state = state;
        this.knownBefore = knownBefore;
        this.confirmedNanos = confirmedNanos;
        this.behind = behind;
        this.dirty = false;
        this.owned = false;
        this.carried = false;
        this.ttl = null;
        this.writes = false;
        this.ttlMillis = 0;
        this.take = null;
        return this;
    }

    /** The key is assumed to hold the state whose SHA-1 is {@code high, middle, low}. */
    Cell expect(long high, long middle, int low) {
        expects = true;
        expectedHigh = high;
        expectedMiddle = middle;
        expectedLow = low;
        return this;
    }

    /**
     * The script writes the state {@code digest} last appended, at {@code offset} of its new states
     * ({@link StateDigest#append}): their place and their SHA-1, what the key then holds.
     */
    public void sending(StateDigest digest, int offset) {
        writes = true;
        writtenOffset = offset;
        writtenLength = digest.length;
        writtenHigh = digest.high();
        writtenMiddle = digest.middle();
        writtenLow = digest.low();
    }

    /** As {@link #sending(StateDigest, int)}, for {@code bytes} appended to this thread's new states. */
    public void sending(byte[] bytes) {
        StateDigest digest = StateDigest.local();
        sending(digest, digest.append(bytes));
    }

    /** Lets go of what it refers to, while it waits to be made over. */
    void clear() {
        state = null;
        owned = false;
        behind = null;
        ttl = null;
        writes = false;
        take = null;
    }

    /** Whether the key holds a state once the round's script ran and wrote. */
    public boolean leavesKey() {
        return writes || expects;
    }

    /** The SHA-1 of what the key holds once the round's script ran and wrote, if it {@link #leavesKey}: first 8 bytes. */
    @Override
    public long high() {
        return writes ? writtenHigh : expectedHigh;
    }

    /** As {@link #high}: the next 8 bytes. */
    @Override
    public long middle() {
        return writes ? writtenMiddle : expectedMiddle;
    }

    /** As {@link #high}: the last 4 bytes. */
    @Override
    public int low() {
        return writes ? writtenLow : expectedLow;
    }

    /** A job wrote {@code after}, to expire by {@code strategy}. */
    public void write(RemoteBucketState after, ExpirationAfterWriteStrategy strategy) {
        state = after;
        dirty = true;
        ttl = strategy;
    }
}
