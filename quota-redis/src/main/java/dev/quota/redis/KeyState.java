package dev.quota.redis;

import io.github.bucket4j.distributed.remote.RemoteBucketState;
import org.jspecify.annotations.Nullable;

/**
 * What this instance knows a bucket key holds in Redis: the bytes it last wrote or saw there (null:
 * no key), their parsed state, and when Redis confirmed them. The one per-key object the store keeps.
 *
 * <p>Never trusted for an admission: a compare-and-swap checks it. It saves the read before a write
 * (a customer served by one instance costs one round trip), and, while confirmed within the trust
 * window, lets a refusal be answered without Redis (consumption elsewhere only ever lowers tokens).
 *
 * <p>The hot tier's entry of its key, made over in place when Redis confirms the key again
 * ({@link KeyStates#confirm}): a write to a key in use costs no object. The combiner's alone, like
 * {@link KeyStates}; a round reads it into its cell at once and keeps no reference to it.
 */
final class KeyState {

    private byte @Nullable [] bytes;
    private @Nullable RemoteBucketState state;
    private long confirmedNanos;
    private long expiresNanos;

    /**
     * @param bytes          the stored bytes, or null when the key does not exist
     * @param state          the bytes parsed, or null when the key does not exist or its bytes are
     *                       kept {@linkplain #unparsed() unparsed}
     * @param confirmedNanos when Redis confirmed them, by the store's clock
     * @param expiresNanos   when to forget them: a second before Redis expires the key, by the store's clock
     */
    KeyState(byte @Nullable [] bytes, @Nullable RemoteBucketState state, long confirmedNanos, long expiresNanos) {
        set(bytes, state, confirmedNanos, expiresNanos);
    }

    /** Makes this entry over for what Redis confirmed again (see the constructor). */
    void set(byte @Nullable [] bytes, @Nullable RemoteBucketState state, long confirmedNanos, long expiresNanos) {
        this.bytes = bytes;
        this.state = state;
        this.confirmedNanos = confirmedNanos;
        this.expiresNanos = expiresNanos;
    }

    /** The stored bytes, or null when the key does not exist. */
    byte @Nullable [] bytes() {
        return bytes;
    }

    /** The bytes parsed, or null when the key does not exist or its bytes are {@linkplain #unparsed() unparsed}. */
    @Nullable RemoteBucketState state() {
        return state;
    }

    /** When Redis confirmed the bytes, by the store's clock. */
    long confirmedNanos() {
        return confirmedNanos;
    }

    /** When to forget them: a second before Redis expires the key, by the store's clock. */
    long expiresNanos() {
        return expiresNanos;
    }

    /**
     * Whether the bytes are kept without their parsed state: a key back from the cold tier, whose
     * state the round that uses it parses for itself (so it may compute on it in place).
     */
    boolean unparsed() {
        return bytes != null && state == null;
    }
}
