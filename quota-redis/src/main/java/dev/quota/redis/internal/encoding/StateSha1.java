package dev.quota.redis.internal.encoding;

/**
 * The SHA-1 of a stored state's bytes, as three primitive words (big-endian: the first 8 bytes, the
 * next 8, the last 4): what the compare-and-swap script compares a key with ({@link CasScript}),
 * and what this instance remembers a key by. Read where a digest is handed from one part to
 * another without an array of its own: this thread's {@link StateDigest} after it digested bytes,
 * a remembered key's state, the engine's cell of a key whose script ran.
 *
 * <p>An implementation answers the words it holds at the moment of the call, on the thread that
 * owns it, and is not kept by whom it is handed to: the words are copied.
 */
public interface StateSha1 {

    /** The SHA-1's first 8 bytes. */
    long high();

    /** The SHA-1's next 8 bytes. */
    long middle();

    /** The SHA-1's last 4 bytes. */
    int low();
}
