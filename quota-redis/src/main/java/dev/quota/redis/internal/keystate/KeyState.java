package dev.quota.redis.internal.keystate;

import dev.quota.redis.internal.encoding.StateDigest;
import dev.quota.redis.internal.encoding.StateSha1;
import io.github.bucket4j.distributed.remote.RemoteBucketState;
import org.jspecify.annotations.Nullable;

/**
 * What this instance knows a bucket key holds in Redis: whether it holds a state, the state's
 * SHA-1 (what the compare-and-swap compares the key with, {@link StateDigest}), the state parsed,
 * and when Redis confirmed it. The one per-key object the hot tier keeps ({@link KeyStates}).
 *
 * <p>Never trusted for an admission: a compare-and-swap checks it. It saves the read before a write
 * (a customer served by one instance costs one round trip), and, while confirmed within the trust
 * window, lets a refusal be answered without Redis (consumption elsewhere only ever lowers tokens).
 *
 * <p>What the state goes back to the cold tier as when the key cools: the bytes this instance
 * wrote or read, when at hand; the key's cold record, when it came back from the cold tier and was
 * not written since ({@link #unparsed()}: the round that uses it parses it for itself); else the
 * state serialized again, which for a state this library wrote is its bytes by construction.
 *
 * <p>The hot tier's entry of its key, made over in place when Redis confirms the key again
 * ({@link KeyStates#confirmBytes}, {@link KeyStates#confirmDigest}, {@link KeyStates#confirmAbsent}),
 * and made over for another key warming when its own cools: a write to a key in use costs no
 * object, nor a key taking another's place in the hot tier. The combiner's alone, like
 * {@link KeyStates}; a round reads it into its cell at once and keeps no reference to it.
 */
public final class KeyState {

    private boolean exists;
    /** Whether {@link #high}, {@link #middle} and {@link #low} are the state's SHA-1 (a cold one's once parsed). */
    private boolean digested;
    private long high;
    private long middle;
    private int low;
    private byte @Nullable [] bytes;
    private long @Nullable [] record;
    private @Nullable RemoteBucketState state;
    private long confirmedNanos;
    private long expiresNanos;

    /**
     * Makes this entry over for a state Redis confirmed (see {@link #absent} for no key).
     *
     * @param sha1           its SHA-1 (copied)
     * @param bytes          its bytes when at hand, else null (they are made from the state if needed)
     * @param state          the state parsed, or null when it is kept {@linkplain #unparsed() unparsed}
     * @param confirmedNanos when Redis confirmed it, by the store's clock
     * @param expiresNanos   when to forget it: a second before Redis expires the key, by the store's clock
     */
    KeyState set(StateSha1 sha1, byte @Nullable [] bytes, @Nullable RemoteBucketState state, long confirmedNanos,
                 long expiresNanos) {
        this.exists = true;
        this.digested = true;
        this.high = sha1.high();
        this.middle = sha1.middle();
        this.low = sha1.low();
        this.bytes = bytes;
        this.record = null;
        this.state = state;
        this.confirmedNanos = confirmedNanos;
        this.expiresNanos = expiresNanos;
        return this;
    }

    /** Makes this entry over for a key Redis confirmed holds nothing. */
    KeyState absent(long confirmedNanos, long expiresNanos) {
        this.exists = false;
        this.digested = false;
        this.bytes = null;
        this.record = null;
        this.state = null;
        this.confirmedNanos = confirmedNanos;
        this.expiresNanos = expiresNanos;
        return this;
    }

    /**
     * Makes this entry over for a key back from the cold tier: its record (a copy, this entry's
     * own), unparsed; its digest is set when a round parses it ({@link KeyStates#parse}).
     */
    KeyState cold(long[] record, long confirmedNanos, long expiresNanos) {
        this.exists = true;
        this.digested = false;
        this.bytes = null;
        this.record = record;
        this.state = null;
        this.confirmedNanos = confirmedNanos;
        this.expiresNanos = expiresNanos;
        return this;
    }

    /** Redis confirmed the same state again: only the times change. */
    void confirmedAgain(@Nullable RemoteBucketState parsed, long confirmedNanos, long expiresNanos) {
        if (parsed != null) {
            this.state = parsed;
        }
        this.confirmedNanos = confirmedNanos;
        this.expiresNanos = expiresNanos;
    }

    /** The state's SHA-1, computed from its bytes as they were decoded to be parsed. */
    void digest(StateSha1 sha1) {
        this.digested = true;
        this.high = sha1.high();
        this.middle = sha1.middle();
        this.low = sha1.low();
    }

    /** Whether the key holds a state (else: no key). */
    public boolean exists() {
        return exists;
    }

    /** Whether the key holds the state whose SHA-1 is {@code sha1} (false while its digest is unknown). */
    boolean holds(StateSha1 sha1) {
        return exists && digested && high == sha1.high() && middle == sha1.middle() && low == sha1.low();
    }

    /** The state's SHA-1, first 8 bytes; a cold one's once a round parsed it ({@link KeyStates#parse}). */
    public long high() {
        return high;
    }

    /** The SHA-1's next 8 bytes. */
    public long middle() {
        return middle;
    }

    /** The SHA-1's last 4 bytes. */
    public int low() {
        return low;
    }

    /** The state's bytes when at hand, else null. */
    byte @Nullable [] bytes() {
        return bytes;
    }

    /** The key's cold record, when it came back from the cold tier and was not written since; else null. */
    long @Nullable [] record() {
        return record;
    }

    /** The state parsed, or null when the key does not exist or it is kept {@linkplain #unparsed() unparsed}. */
    public @Nullable RemoteBucketState state() {
        return state;
    }

    /** When Redis confirmed the state, by the store's clock. */
    public long confirmedNanos() {
        return confirmedNanos;
    }

    /** When to forget it: a second before Redis expires the key, by the store's clock. */
    long expiresNanos() {
        return expiresNanos;
    }

    /**
     * Whether the state is kept without its parsed form: a key back from the cold tier, whose
     * state the round that uses it parses for itself (so it may compute on it in place).
     */
    public boolean unparsed() {
        return exists && state == null;
    }

    /** Lets go of what it refers to: a spare entry, to be made over for the next key that warms. */
    void clear() {
        exists = false;
        digested = false;
        bytes = null;
        record = null;
        state = null;
    }
}
