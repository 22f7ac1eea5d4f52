package dev.quota.redis.internal.keystate;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Stored bucket states kept small: each as the 8-byte words where it differs from a template, a
 * state of the same length seen before. Buckets with the same limits serialize to the same bytes
 * but for their tokens and times, so a one-limit state of 123 bytes keeps about four words of its
 * sixteen, and a transfer's two-limit plan bucket of 202 bytes at most eight of its twenty-six.
 * Decoding gives back exactly the bytes encoded: a word not kept equals the template's.
 *
 * <p>A record is one {@code long[]}: {@code [confirmedNanos, expiresNanos, check << 32 | template,
 * mask, words...]}, bit {@code i} of {@code mask} set where word {@code i} differs; {@code check}
 * is the caller's (a second hash of the key). A state longer than {@value #MAX_WORDS} words, or
 * unlike every template when no more may be added, is kept whole ({@link #RAW}: {@code mask}
 * holds its length); a key that holds nothing is {@link #ABSENT}, with no words.
 *
 * <p>Templates are only added, at most {@value #PER_LENGTH} per length and {@value #MAX_TEMPLATES}
 * in all (a few hundred kilobytes at worst), so a record's template index never goes stale. The
 * combiner's alone, like {@link KeyStates}.
 */
final class StateTemplates {

    static final int CONFIRMED = 0;
    static final int EXPIRES = 1;
    /** The word holding the check (high half) and the template index (low half). */
    static final int CHECK = 2;
    static final int HEADER = 4;
    /** The template index of a key that holds nothing. */
    static final int ABSENT = -2;
    /** The template index of a state kept whole. */
    static final int RAW = -1;
    static final int MAX_WORDS = 64;
    static final int PER_LENGTH = 8;
    static final int MAX_TEMPLATES = 4096;
    /** Records kept per length for reuse ({@link #recycle}). */
    private static final int SPARE_PER_LENGTH = 16;

    private static final VarHandle WORD = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private final List<byte[]> templates = new ArrayList<>();
    /** By a state's length in bytes: its templates' indexes, the first {@code sameLength[length]} set. */
    private final int[][] byLength = new int[MAX_WORDS * 8 + 1][];
    private final int[] sameLength = new int[MAX_WORDS * 8 + 1];
    /** Records no tier holds any more, by length, for the next records of that length. */
    private final long[][][] spare = new long[HEADER + MAX_WORDS + 1][][];
    private final int[] spares = new int[HEADER + MAX_WORDS + 1];

    /** How many templates there are. */
    int size() {
        return templates.size();
    }

    /** The record of {@code bytes} (null: no key), confirmed and to be forgotten at the times given. */
    long[] encode(byte @Nullable [] bytes, long confirmedNanos, long expiresNanos, int check) {
        if (bytes == null) {
            return header(HEADER, confirmedNanos, expiresNanos, check, ABSENT, 0);
        }
        return encode(bytes, bytes.length, confirmedNanos, expiresNanos, check);
    }

    /** As {@link #encode(byte[], long, long, int)}, for the first {@code length} bytes of {@code bytes} (a scratch buffer). */
    long[] encode(byte[] bytes, int length, long confirmedNanos, long expiresNanos, int check) {
        int words = words(length);
        int template = words > MAX_WORDS ? RAW : template(bytes, length, words);
        if (template == RAW) {
            long[] rec = header(HEADER + words, confirmedNanos, expiresNanos, check, RAW, length);
            for (int i = 0; i < words; i++) {
                rec[HEADER + i] = word(bytes, length, i);
            }
            return rec;
        }
        byte[] base = templates.get(template);
        long mask = 0;
        int differing = 0;
        for (int i = 0; i < words; i++) {
            if (word(bytes, length, i) != word(base, base.length, i)) {
                mask |= 1L << i;
                differing++;
            }
        }
        long[] rec = header(HEADER + differing, confirmedNanos, expiresNanos, check, template, mask);
        int at = HEADER;
        for (int i = 0; i < words; i++) {
            if ((mask & (1L << i)) != 0) {
                rec[at++] = word(bytes, length, i);
            }
        }
        return rec;
    }

    /** The bytes {@code rec} was encoded from, in an array of their own; null for a key that holds nothing. */
    byte @Nullable [] decode(long[] rec) {
        if (template(rec) == ABSENT) {
            return null;
        }
        int length = length(rec);
        byte[] bytes = new byte[words(length) << 3];
        decode(rec, bytes);
        return bytes.length == length ? bytes : Arrays.copyOf(bytes, length);
    }

    /** The length in bytes of the state {@code rec} was encoded from (0: a key that holds nothing). */
    int length(long[] rec) {
        int template = template(rec);
        return template == ABSENT ? 0 : template == RAW ? (int) rec[3] : templates.get(template).length;
    }

    /** The room {@link #decode(long[], byte[])} needs for {@code rec}: its length rounded up to whole words. */
    int room(long[] rec) {
        return words(length(rec)) << 3;
    }

    /**
     * Writes the bytes {@code rec} was encoded from at the start of {@code into} (a scratch buffer of
     * at least {@link #room} bytes; what it holds past them is left undefined); answers their length.
     */
    int decode(long[] rec, byte[] into) {
        int template = template(rec);
        if (template == ABSENT) {
            return 0;
        }
        if (template == RAW) {
            for (int i = 0; i < rec.length - HEADER; i++) {
                WORD.set(into, i << 3, rec[HEADER + i]);
            }
            return (int) rec[3];
        }
        byte[] base = templates.get(template);
        System.arraycopy(base, 0, into, 0, base.length);
        long mask = rec[3];
        int at = HEADER;
        while (mask != 0) {
            int i = Long.numberOfTrailingZeros(mask);
            WORD.set(into, i << 3, rec[at++]);
            mask &= mask - 1;
        }
        return base.length;
    }

    /**
     * Takes back a record nothing holds any more (a key leaving the cold tier): the next record of
     * its length is written over it. A key that becomes hot gives back its record as another one
     * cools, so keys taking turns allocate no record each.
     */
    void recycle(long[] rec) {
        int length = rec.length;
        if (length >= spare.length || spares[length] == SPARE_PER_LENGTH) {
            return;
        }
        long[][] kept = spare[length];
        if (kept == null) {
            kept = new long[SPARE_PER_LENGTH][];
            spare[length] = kept;
        }
        kept[spares[length]++] = rec;
    }

    /** The check the record was encoded with. */
    static int check(long[] rec) {
        return (int) (rec[CHECK] >>> 32);
    }

    static int template(long[] rec) {
        return (int) rec[CHECK];
    }

    /**
     * The template of {@code bytes}' length that differs from them in the fewest words; a copy of
     * them becomes a new one when the best differs in more than half its words and there is room.
     */
    private int template(byte[] bytes, int length, int words) {
        int[] same = byLength[length];
        if (same == null) {
            same = new int[PER_LENGTH];
            byLength[length] = same;
        }
        int best = RAW;
        int bestDiffering = Integer.MAX_VALUE;
        for (int s = 0; s < sameLength[length]; s++) {
            int index = same[s];
            byte[] base = templates.get(index);
            int differing = 0;
            for (int i = 0; i < words && differing < bestDiffering; i++) {
                if (word(bytes, length, i) != word(base, length, i)) {
                    differing++;
                }
            }
            if (differing < bestDiffering) {
                best = index;
                bestDiffering = differing;
            }
        }
        if (bestDiffering > words / 2 && sameLength[length] < PER_LENGTH && templates.size() < MAX_TEMPLATES) {
            templates.add(Arrays.copyOf(bytes, length));
            same[sameLength[length]++] = templates.size() - 1;
            return templates.size() - 1;
        }
        return best;
    }

    /** A record of {@code length} longs, a spare one when there is one; every one of which the caller writes. */
    long[] record(int length) {
        if (length < spare.length && spares[length] > 0) {
            long[][] kept = spare[length];
            long[] rec = kept[--spares[length]];
            kept[spares[length]] = null;
            return rec;
        }
        return new long[length];
    }

    private long[] header(int length, long confirmedNanos, long expiresNanos, int check, int template, long mask) {
        long[] rec = record(length);
        rec[CONFIRMED] = confirmedNanos;
        rec[EXPIRES] = expiresNanos;
        rec[CHECK] = ((long) check << 32) | (template & 0xFFFF_FFFFL);
        rec[3] = mask;
        return rec;
    }

    private static int words(int length) {
        return (length + 7) >>> 3;
    }

    /** Word {@code i} of the first {@code length} bytes of {@code bytes}, the bytes past them read as zero. */
    private static long word(byte[] bytes, int length, int i) {
        int from = i << 3;
        if (from + 8 <= length) {
            return (long) WORD.get(bytes, from);
        }
        long w = 0;
        for (int b = 0; b < 8; b++) {
            w = (w << 8) | (from + b < length ? bytes[from + b] & 0xFF : 0);
        }
        return w;
    }
}
