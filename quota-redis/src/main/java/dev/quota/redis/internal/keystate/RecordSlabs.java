package dev.quota.redis.internal.keystate;

import java.util.Arrays;

/**
 * The cold tier's records ({@link StateTemplates}) packed into long arrays, one slab per record
 * length: the records of one length lie side by side in chunks of {@value #PER_CHUNK}, dense (a
 * removed record's place is taken by the slab's last one), each with the table slot that owns it,
 * so the owner of a moved record is told its new place.
 *
 * <p>Why: a record kept as an array of its own is an object that outlives young collections and
 * dies old, and the table's reference to it is one more card a young collection scans. Here a
 * record is copied in and out; what lives is a few chunks, allocated as slabs grow, and no
 * reference at all. A chunk is at most {@value #PER_CHUNK} x {@value #MAX_LENGTH} x 8 bytes, about
 * 254 KB: never a humongous object in G1 (half a region, 512 KB at the smallest).
 *
 * <p>The combiner's alone, like {@link ColdStates}.
 */
final class RecordSlabs {

    /** The longest record kept, in words: a header and a state of up to 984 bytes. */
    static final int MAX_LENGTH = 127;
    private static final int SHIFT = 8;
    static final int PER_CHUNK = 1 << SHIFT;
    private static final int MASK = PER_CHUNK - 1;

    /** By record length: the chunks of words, {@code PER_CHUNK x length} each. */
    private final long[][][] words = new long[MAX_LENGTH + 1][][];
    /** By record length: the owning slot of each record, {@code PER_CHUNK} a chunk. */
    private final int[][][] owners = new int[MAX_LENGTH + 1][][];
    /** By record length: how many records there are, at places {@code 0 .. count - 1}. */
    private final int[] counts = new int[MAX_LENGTH + 1];

    /** Copies {@code rec} in, owned by {@code owner}; returns its place among the records of its length. */
    int add(long[] rec, int owner) {
        int length = rec.length;
        int place = counts[length]++;
        int chunk = place >>> SHIFT;
        if (words[length] == null) {
            words[length] = new long[4][];
            owners[length] = new int[4][];
        } else if (chunk == words[length].length) {
            words[length] = Arrays.copyOf(words[length], chunk * 2);
            owners[length] = Arrays.copyOf(owners[length], chunk * 2);
        }
        if (words[length][chunk] == null) {
            words[length][chunk] = new long[PER_CHUNK * length];
            owners[length][chunk] = new int[PER_CHUNK];
        }
        System.arraycopy(rec, 0, words[length][chunk], (place & MASK) * length, length);
        owners[length][chunk][place & MASK] = owner;
        return place;
    }

    /** Word {@code i} of the record of {@code length} at {@code place}. */
    long word(int length, int place, int i) {
        return words[length][place >>> SHIFT][(place & MASK) * length + i];
    }

    /** The record of {@code length} at {@code place}, copied into {@code rec} (of that length), which it answers. */
    long[] copy(int length, int place, long[] rec) {
        System.arraycopy(words[length][place >>> SHIFT], (place & MASK) * length, rec, 0, length);
        return rec;
    }

    /** Tells the record of {@code length} at {@code place} that {@code owner} holds it now. */
    void own(int length, int place, int owner) {
        owners[length][place >>> SHIFT][place & MASK] = owner;
    }

    /**
     * Removes the record of {@code length} at {@code place}: the last record of that length moves
     * into it. Returns the slot owning the moved record, whose place is {@code place} now, or -1
     * when none moved.
     */
    int remove(int length, int place) {
        int last = --counts[length];
        int moved = -1;
        if (place != last) {
            System.arraycopy(words[length][last >>> SHIFT], (last & MASK) * length,
                    words[length][place >>> SHIFT], (place & MASK) * length, length);
            moved = owners[length][last >>> SHIFT][last & MASK];
            owners[length][place >>> SHIFT][place & MASK] = moved;
        }
        // the chunk past an emptied one goes back to the heap; the emptied one is kept for the next records
        int spare = (last >>> SHIFT) + 1;
        if ((last & MASK) == 0 && spare < words[length].length && words[length][spare] != null) {
            words[length][spare] = null;
            owners[length][spare] = null;
        }
        return moved;
    }

    /** How many records there are of every length together. */
    int size() {
        int size = 0;
        for (int count : counts) {
            size += count;
        }
        return size;
    }

    /** Forgets every record and gives the chunks back. */
    void clear() {
        Arrays.fill(words, null);
        Arrays.fill(owners, null);
        Arrays.fill(counts, 0);
    }
}
