package dev.quota.redis;

import io.netty.buffer.ByteBuf;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The SHA-1 of a stored state, what the compare-and-swap script compares a key with
 * ({@link CasScript}): computed where the state's bytes are at hand and kept as three primitive
 * fields ({@link #high}, {@link #middle}, {@link #low}), never as an array per decision. One per
 * thread ({@link #local}): its digest and its scratch output are reused.
 */
final class StateDigest {

    private static final ThreadLocal<StateDigest> LOCAL = ThreadLocal.withInitial(StateDigest::new);
    private static final byte[] HEX = {'0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'a', 'b', 'c', 'd', 'e', 'f'};
    /** The digest's length in hex, as {@code redis.sha1hex} answers it. */
    static final int HEX_LENGTH = 40;

    private final MessageDigest sha1;
    private final byte[] out = new byte[20];
    /** A scratch buffer of this thread's for bytes a state is decoded into ({@link #scratch}). */
    private byte[] scratch = new byte[256];
    /** The last digest's first 8 bytes, next 8 and last 4, big-endian. */
    long high;
    long middle;
    int low;

    private StateDigest() {
        try {
            sha1 = MessageDigest.getInstance("SHA-1");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-1", e);
        }
    }

    /** This thread's. */
    static StateDigest local() {
        return LOCAL.get();
    }

    /** Digests {@code length} bytes of {@code bytes} from {@code offset}: the result is in the fields. */
    StateDigest of(byte[] bytes, int offset, int length) {
        sha1.update(bytes, offset, length);
        try {
            sha1.digest(out, 0, out.length);
        } catch (java.security.DigestException e) {
            throw new IllegalStateException("a SHA-1 is 20 bytes", e);
        }
        high = word(0);
        middle = word(8);
        low = (int) (word(12) & 0xFFFF_FFFFL);
        return this;
    }

    /** Digests all of {@code bytes}. */
    StateDigest of(byte[] bytes) {
        return of(bytes, 0, bytes.length);
    }

    /** This thread's scratch buffer, at least {@code length} bytes: valid until this thread's next call. */
    byte[] scratch(int length) {
        if (scratch.length < length) {
            scratch = new byte[Math.max(length, 2 * scratch.length)];
        }
        return scratch;
    }

    private long word(int from) {
        long w = 0;
        for (int i = from; i < from + 8; i++) {
            w = (w << 8) | (out[i] & 0xFF);
        }
        return w;
    }

    /** Writes the digest {@code high, middle, low} as 40 lowercase hex characters, as {@code redis.sha1hex} does. */
    static void writeHex(ByteBuf to, long high, long middle, int low) {
        hex(to, high, 16);
        hex(to, middle, 16);
        hex(to, low & 0xFFFF_FFFFL, 8);
    }

    private static void hex(ByteBuf to, long value, int digits) {
        for (int shift = 4 * (digits - 1); shift >= 0; shift -= 4) {
            to.writeByte(HEX[(int) (value >>> shift) & 0xF]);
        }
    }
}
