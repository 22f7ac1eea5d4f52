package dev.quota.redis.internal.encoding;

import dev.quota.core.internal.Scratch;
import dev.quota.core.internal.StateWire;
import io.github.bucket4j.distributed.remote.RemoteBucketState;
import io.netty.buffer.ByteBuf;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/**
 * The SHA-1 of a stored state, what the compare-and-swap script compares a key with
 * ({@link CasScript}): computed where the state's bytes are at hand and kept as three primitive
 * fields ({@link #high()}, {@link #middle()}, {@link #low()}), never as an array per decision. One per
 * thread ({@link #local}): its digest and its scratch output are reused.
 *
 * <p>The bytes a state is decoded into or serialized into for a moment ({@link StateBuffer}) are
 * this thread's too, taken with {@link #takeBuffer} and given back in a {@code finally}: they come
 * from {@link Scratch}, so a take while the thread holds them (a decode inside a decode) throws
 * instead of handing one buffer to two users.
 */
public final class StateDigest implements StateSha1 {

    private static final ThreadLocal<StateDigest> LOCAL = ThreadLocal.withInitial(StateDigest::new);
    private static final Scratch<StateBuffer> BUFFERS = Scratch.perThread("a stored state's scratch bytes",
            StateBuffer::new);
    private static final byte[] HEX = {'0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'a', 'b', 'c', 'd', 'e', 'f'};
    /** The digest's length in hex, as {@code redis.sha1hex} answers it. */
    static final int HEX_LENGTH = 40;

    private final MessageDigest sha1;
    private final byte[] out = new byte[20];
    /**
     * The new states of the script this thread is sending, one after another ({@link #append}):
     * read when its argument is written, before the send returns ({@link CasScript#writeArgument}).
     */
    private byte[] written = new byte[1024];
    private int writtenEnd;
    /** The length of the last state appended. */
    public int length;
    /** The last digest's first 8 bytes, next 8 and last 4, big-endian. */
    private long high;
    private long middle;
    private int low;

    private StateDigest() {
        try {
            sha1 = MessageDigest.getInstance("SHA-1");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-1", e);
        }
    }

    /** The last digest's first 8 bytes. */
    @Override
    public long high() {
        return high;
    }

    /** The last digest's next 8 bytes. */
    @Override
    public long middle() {
        return middle;
    }

    /** The last digest's last 4 bytes. */
    @Override
    public int low() {
        return low;
    }

    /** This thread's. */
    public static StateDigest local() {
        return LOCAL.get();
    }

    /** Digests {@code length} bytes of {@code bytes} from {@code offset}: {@link #high()} and the others answer it. */
    public StateDigest of(byte[] bytes, int offset, int length) {
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
    public StateDigest of(byte[] bytes) {
        return of(bytes, 0, bytes.length);
    }

    /**
     * This thread's buffer for a stored state's bytes, taken until {@link #giveBack}.
     *
     * @throws IllegalStateException if this thread holds it already (a re-entrant use)
     */
    public static StateBuffer takeBuffer() {
        return BUFFERS.take();
    }

    /** Gives back what {@link #takeBuffer} answered; a second give-back is harmless. */
    public static void giveBack(StateBuffer buffer) {
        BUFFERS.giveBack(buffer);
    }

    /** Bytes a stored state is decoded into or serialized into, grown as needed: one per thread. */
    public static final class StateBuffer {
        private byte[] bytes = new byte[256];

        private StateBuffer() {
        }

        /** At least {@code length} bytes, what was in them not kept when they grow. */
        public byte[] room(int length) {
            if (bytes.length < length) {
                bytes = new byte[Math.max(length, 2 * bytes.length)];
            }
            return bytes;
        }
    }

    /** Begins the new states of a script to send: those of the last one are forgotten. */
    public void startScript() {
        writtenEnd = 0;
    }

    /**
     * Appends the stored form of {@code state} to the script's new states and digests it: its
     * offset in {@link #written()} is answered, its length is {@link #length}, its digest is what
     * {@link #high()} and the others answer.
     */
    public int append(RemoteBucketState state) {
        int at = writtenEnd;
        int length = StateWire.write(state, written, at);
        if (length < 0) {
            written = Arrays.copyOf(written, Math.max(2 * written.length, at - length));
            length = StateWire.write(state, written, at);
        }
        return appended(at, length);
    }

    /** As {@link #append(RemoteBucketState)}, for bytes given. */
    public int append(byte[] bytes) {
        int at = writtenEnd;
        if (at + bytes.length > written.length) {
            written = Arrays.copyOf(written, Math.max(2 * written.length, at + bytes.length));
        }
        System.arraycopy(bytes, 0, written, at, bytes.length);
        return appended(at, bytes.length);
    }

    private int appended(int at, int length) {
        writtenEnd = at + length;
        this.length = length;
        of(written, at, length);
        return at;
    }

    /** The script's new states ({@link #append}): valid on this thread until its next script. */
    byte[] written() {
        return written;
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
