package dev.quota.redis.internal.keystate;

import org.jspecify.annotations.Nullable;

/**
 * Which keys this instance forgot while Redis may still hold them: past the bound of remembered
 * keys ({@link KeyStates}), a key pushed out before it expired is noted here, so its next decision
 * reads it first instead of assuming it absent. Assumed absent, it would cost more than the read:
 * the compare-and-swap carrying it finds the key present and writes nothing, so every decision in
 * that script (up to 256) is computed again, and so is every script sent behind it on a key they
 * share (the limit every customer shares is in all of them).
 *
 * <p>Noted is a 16-bit tag of the key's fingerprint, four tags to a bucket (one {@code long}), the
 * bucket chosen by other bits of the fingerprint: at most one {@code long} per remembered key
 * (8 MiB for the default bound under {@code -Xmx1g}), allocated only once a key is first forgotten.
 * A key remembered again is taken out; when a bucket is full the tag noted first leaves it. So a
 * lookup can be wrong both ways, and neither costs exactness: a key taken for forgotten costs a
 * read (with four tags a bucket, at most about one key in 16,000), and a key whose tag was pushed
 * out is assumed absent, as before, its compare-and-swap finding it differing.
 *
 * <p>The combiner's alone, like {@link KeyStates}.
 */
public final class ForgottenKeys {

    /** Tags a bucket holds: one {@code long} of four 16-bit tags, 0 an empty place. */
    private static final int WAYS = 4;
    private static final int MIN_BUCKETS = 64;
    private static final int MAX_BUCKETS = 1 << 24;

    private final int buckets;
    /** Null until the first key is forgotten: an instance within its bound pays nothing. */
    private long @Nullable [] table;

    /** Sized for {@code maxRemembered} remembered keys: the largest power of two not above it, one bucket each. */
    ForgottenKeys(int maxRemembered) {
        this.buckets = bucketsFor(maxRemembered);
    }

    static int bucketsFor(int maxRemembered) {
        return Math.max(MIN_BUCKETS, Math.min(MAX_BUCKETS, Integer.highestOneBit(Math.max(1, maxRemembered))));
    }

    /** Notes that the key of {@code fingerprint} was forgotten while Redis may still hold it. */
    void add(long fingerprint) {
        long[] t = table;
        if (t == null) {
            t = new long[buckets];
            table = t;
        }
        int i = bucket(fingerprint);
        long tag = tag(fingerprint);
        long b = t[i];
        for (int w = 0; w < WAYS; w++) {
            long held = (b >>> (16 * w)) & 0xFFFF;
            if (held == tag) {
                return;
            }
        }
        // tags move up a place as new ones come in at the lowest, so the highest was noted first:
        // it leaves when the bucket is full; a place a removal emptied below it is taken as it is
        if ((b >>> (16 * (WAYS - 1))) == 0) {
            t[i] = (b << 16) | tag;
            return;
        }
        for (int w = 0; w < WAYS - 1; w++) {
            if (((b >>> (16 * w)) & 0xFFFF) == 0) {
                t[i] = b | (tag << (16 * w));
                return;
            }
        }
        t[i] = (b << 16) | tag;
    }

    /** Whether the key of {@code fingerprint} was noted forgotten (rarely, another key's tag). */
    boolean contains(long fingerprint) {
        long[] t = table;
        if (t == null) {
            return false;
        }
        long b = t[bucket(fingerprint)];
        long tag = tag(fingerprint);
        for (int w = 0; w < WAYS; w++) {
            if (((b >>> (16 * w)) & 0xFFFF) == tag) {
                return true;
            }
        }
        return false;
    }

    /** The key of {@code fingerprint} is remembered again: it is no longer noted. */
    void remove(long fingerprint) {
        long[] t = table;
        if (t == null) {
            return;
        }
        int i = bucket(fingerprint);
        long b = t[i];
        long tag = tag(fingerprint);
        for (int w = 0; w < WAYS; w++) {
            if (((b >>> (16 * w)) & 0xFFFF) == tag) {
                t[i] = b & ~(0xFFFFL << (16 * w));
                return;
            }
        }
    }

    /** Whether no key was noted since it was built or cleared (then nothing needs looking up). */
    boolean isEmpty() {
        return table == null;
    }

    /** Notes nothing any more, and gives the table back. */
    void clear() {
        table = null;
    }

    /** The heap the table takes, in bytes (0 before a key is forgotten). */
    long bytes() {
        long[] t = table;
        return t == null ? 0 : 8L * t.length;
    }

    private int bucket(long fingerprint) {
        return (int) (fingerprint >>> 32) & (buckets - 1);
    }

    /** 16 bits of the fingerprint other than the bucket's; never 0. */
    private static long tag(long fingerprint) {
        long tag = (fingerprint >>> 16) & 0xFFFF;
        return tag == 0 ? 1 : tag;
    }
}
