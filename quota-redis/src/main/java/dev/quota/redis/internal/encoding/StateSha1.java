package dev.quota.redis.internal.encoding;

/**
 * The SHA-1 of a stored state's bytes, as three primitive words (big-endian: the first 8 bytes, the
 * next 8, the last 4): what the compare-and-swap script compares a key with ({@link CasScript}),
 * and what this instance remembers a key by. How a digest is handed from one package to another
 * without an object or an array of its own: this thread's {@link StateDigest} after it digested
 * bytes is one, and so is the engine's cell of a key whose script ran (the SHA-1 of what the key
 * then holds), which the key states take ({@code KeyStates.confirmDigest}).
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
