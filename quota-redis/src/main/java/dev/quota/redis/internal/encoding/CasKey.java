package dev.quota.redis.internal.encoding;

import org.jspecify.annotations.Nullable;

/**
 * What the compare-and-swap script ({@link CasScript}) is told of one of its keys: the state the
 * key is expected to hold, the new state to write there, the take and the TTL. The engine's cell
 * of a key in a round extends it with what only the engine keeps; the encoding reads these fields
 * and nothing else of it. Fields, not methods: the argument of a call is written by reading them
 * for every key of every script sent, and a field costs no call to read.
 *
 * <p>Written by the caller that combines while it sends the script, and read on that thread before
 * the send returns ({@link CasScript#writeArgument}); from then on only read, until the script is
 * settled.
 */
public abstract class CasKey {
    public String key;
    /** Whether the key is expected to hold a state (else: no key). */
    public boolean expects;
    /**
     * The SHA-1 of the state the key is expected to hold, when it {@link #expects} one
     * ({@link StateDigest}): what the script compares the key with. Primitive fields: a key made
     * over for another round costs no array.
     */
    public long expectedHigh;
    public long expectedMiddle;
    public int expectedLow;
    /**
     * Whether the script writes a new state at the key (else it leaves it as it is), for
     * {@link #ttlMillis}: set when the script is sent, read until it is settled.
     */
    public boolean writes;
    /**
     * Where the new state's bytes are in this thread's {@link StateDigest#written()} while the
     * script is sent: no array of their own.
     */
    public int writtenOffset;
    public int writtenLength;
    /** How long the key is to live in milliseconds once written ({@code <= 0}: no expiry). */
    public long ttlMillis;
    /**
     * What the round's one decision takes from the key, described for the script to take from
     * another state than expected ({@link StoredTake}); null: the key is only compared. Set when
     * the script is sent, with {@link #writes}.
     */
    public @Nullable String take;

    protected CasKey(String key) {
        this.key = key;
    }
}
