package dev.quota.redis.internal.keystate;

import java.util.function.IntFunction;
import org.jspecify.annotations.Nullable;

/**
 * The records of keys not used lately ({@link StateTemplates}), by a 64-bit fingerprint of the key:
 * an open-addressing table with linear probing, at most four fifths full, whose slots hold the
 * fingerprint, the record's length and place in {@link RecordSlabs} and a read flag (13 bytes a
 * slot), not a map entry and the key's string. The records lie in the slabs, so a remembered key
 * is no object of its own: keeping one copies its record in, reading one copies it out, and no
 * young collection copies or scans anything of this table. At most {@code max} records; past
 * that, one is forgotten by the clock (second chance): a record read since the hand last passed
 * it is passed over once. A record longer than {@link RecordSlabs#MAX_LENGTH} words (a bucket
 * state of over 984 bytes) is not kept.
 *
 * <p>The combiner's alone, like {@link KeyStates}.
 */
final class ColdStates {

    private static final int MIN_CAPACITY = 64;
    /** Slots looked at, from the sweep position, for expired records per record added. */
    private static final int SWEEP = 2;
    /** In {@link #lengths}: the record was read since the clock hand last passed it. */
    private static final int READ = 0x80;
    /**
     * How far the clock hand and the expiry sweep move per slot looked at: odd, so they pass every
     * slot of a power-of-two table once a turn, but scattered over it. Moving slot by slot, the
     * hand emptied the slots behind it while new records landed everywhere, so the slots just
     * ahead of it, the longest unswept, filled up to one run of thousands that every eviction and
     * every lookup landing in it walked (a million customers making transfers, four million keys
     * against a bound of a million, slowed the store to a few hundred decisions a second).
     */
    private static final int STRIDE = 0x9E3779B9;

    private final int max;
    private final int maxCapacity;
    private final RecordSlabs slabs = new RecordSlabs();
    /** 0: an empty slot. */
    private long[] fingerprints;
    /** Each slot's record: its place among the records of its length. */
    private int[] places;
    /** Each slot's record length in words, with {@link #READ}. */
    private byte[] lengths;
    private int size;
    private int hand;
    private int sweep;

    ColdStates(int max) {
        this.max = max;
        this.maxCapacity = capacityFor(max);
        allocate(Math.min(MIN_CAPACITY, maxCapacity));
    }

    /** How many records there are (expired ones included until they are looked at). */
    int size() {
        return size;
    }

    /** A copy of the record of {@code fingerprint}, unless there is none or it expired by {@code nowNanos}. */
    long @Nullable [] get(long fingerprint, long nowNanos) {
        return get(fingerprint, nowNanos, long[]::new);
    }

    /**
     * A copy of the record of {@code fingerprint}, into an array of its length {@code records}
     * gives (a spare one: a key read out of the tier need not allocate one), unless there is none
     * or it expired by {@code nowNanos}.
     */
    long @Nullable [] get(long fingerprint, long nowNanos, IntFunction<long[]> records) {
        int slot = find(fingerprint);
        if (slot < 0) {
            return null;
        }
        if (nowNanos - expires(slot) >= 0) {
            deleteAt(slot);
            return null;
        }
        lengths[slot] |= (byte) READ;
        int length = length(slot);
        return slabs.copy(length, places[slot], records.apply(length));
    }

    /**
     * Keeps a copy of {@code rec} for {@code fingerprint}; past the bound, the clock forgets one
     * record first. Answers the fingerprint of a key forgotten before it expired, so that its next
     * use reads it ({@link ForgottenKeys}): the one the clock forgot, or {@code fingerprint} itself
     * when its record is not kept; 0 when none was.
     */
    long put(long fingerprint, long[] rec, long nowNanos) {
        if (max == 0) {
            return fingerprint;
        }
        if (rec.length > RecordSlabs.MAX_LENGTH) {
            remove(fingerprint);
            return fingerprint;
        }
        sweepExpired(nowNanos);
        int slot = find(fingerprint);
        if (slot >= 0) {
            release(slot);
            places[slot] = slabs.add(rec, slot);
            lengths[slot] = (byte) (rec.length | (lengths[slot] & READ));
            return 0;
        }
        long forgotten = 0;
        if (size >= max) {
            forgotten = evictOne(nowNanos);
        } else if (size + 1 > fingerprints.length / 5 * 4 && fingerprints.length < maxCapacity) {
            grow();
        }
        int mask = fingerprints.length - 1;
        int i = (int) fingerprint & mask;
        while (fingerprints[i] != 0) {
            i = (i + 1) & mask;
        }
        fingerprints[i] = fingerprint;
        places[i] = slabs.add(rec, i);
        lengths[i] = (byte) rec.length;
        size++;
        return forgotten;
    }

    /**
     * Whether a record of {@code fingerprint}, encoded with {@code check} and not expired by
     * {@code nowNanos}, is kept; reads nothing out and marks nothing read.
     */
    boolean has(long fingerprint, int check, long nowNanos) {
        int slot = find(fingerprint);
        return slot >= 0 && nowNanos - expires(slot) < 0
                && (int) (slabs.word(length(slot), places[slot], StateTemplates.CHECK) >>> 32) == check;
    }

    /** Forgets {@code fingerprint}'s record, if there is one. */
    void remove(long fingerprint) {
        int slot = find(fingerprint);
        if (slot >= 0) {
            deleteAt(slot);
        }
    }

    /** The most slots in a row that hold records: the longest walk a lookup may take. */
    int longestRun() {
        int longest = 0;
        int run = 0;
        // twice round, so a run that wraps past the last slot is counted whole
        for (int i = 0; i < 2 * fingerprints.length; i++) {
            run = fingerprints[i & (fingerprints.length - 1)] != 0 ? run + 1 : 0;
            longest = Math.max(longest, Math.min(run, fingerprints.length));
        }
        return longest;
    }

    /** Forgets every record. */
    void clear() {
        slabs.clear();
        allocate(Math.min(MIN_CAPACITY, maxCapacity));
    }

    private int find(long fingerprint) {
        int mask = fingerprints.length - 1;
        int i = (int) fingerprint & mask;
        long f;
        while ((f = fingerprints[i]) != 0) {
            if (f == fingerprint) {
                return i;
            }
            i = (i + 1) & mask;
        }
        return -1;
    }

    private int length(int slot) {
        return lengths[slot] & (READ - 1);
    }

    private long expires(int slot) {
        return slabs.word(length(slot), places[slot], StateTemplates.EXPIRES);
    }

    /** Gives {@code slot}'s record back to the slabs; the record moved into its place learns its new place. */
    private void release(int slot) {
        int moved = slabs.remove(length(slot), places[slot]);
        if (moved >= 0) {
            places[moved] = places[slot];
        }
    }

    /** Idle records leave as new ones come, not only at the bound. */
    private void sweepExpired(long nowNanos) {
        for (int n = 0; n < SWEEP && size > 0; n++) {
            sweep &= fingerprints.length - 1;
            if (fingerprints[sweep] != 0 && nowNanos - expires(sweep) >= 0) {
                deleteAt(sweep); // a later record may have moved into this slot: looked at next turn
            }
            sweep += STRIDE;
        }
    }

    /**
     * Forgets an expired record, else the first the hand finds unread since it last passed; answers
     * the fingerprint of the one forgotten unexpired, 0 for an expired one.
     */
    private long evictOne(long nowNanos) {
        int mask = fingerprints.length - 1;
        while (true) {
            hand &= mask;
            int slot = hand;
            hand += STRIDE;
            long fingerprint = fingerprints[slot];
            if (fingerprint != 0) {
                boolean expired = nowNanos - expires(slot) >= 0;
                if (expired || (lengths[slot] & READ) == 0) {
                    deleteAt(slot);
                    return expired ? 0 : fingerprint;
                }
                lengths[slot] &= (byte) ~READ;
            }
        }
    }

    /**
     * Empties {@code slot} and moves back the records after it that probed past it, so every
     * record stays reachable from its home slot without tombstones.
     */
    private void deleteAt(int slot) {
        release(slot);
        int mask = fingerprints.length - 1;
        int hole = slot;
        int j = slot;
        while (true) {
            j = (j + 1) & mask;
            long f = fingerprints[j];
            if (f == 0) {
                break;
            }
            int home = (int) f & mask;
            // the record at j stays when its home lies cyclically in (hole, j]
            boolean stays = hole <= j ? hole < home && home <= j : hole < home || home <= j;
            if (!stays) {
                move(j, hole);
                hole = j;
            }
        }
        fingerprints[hole] = 0;
        lengths[hole] = 0;
        size--;
    }

    /** Moves slot {@code from}'s record to the empty slot {@code to}, telling the slabs. */
    private void move(int from, int to) {
        fingerprints[to] = fingerprints[from];
        places[to] = places[from];
        lengths[to] = lengths[from];
        slabs.own(length(to), places[to], to);
    }

    private void grow() {
        long[] oldFingerprints = fingerprints;
        int[] oldPlaces = places;
        byte[] oldLengths = lengths;
        allocate(fingerprints.length * 2);
        int mask = fingerprints.length - 1;
        for (int s = 0; s < oldFingerprints.length; s++) {
            long f = oldFingerprints[s];
            if (f != 0) {
                int i = (int) f & mask;
                while (fingerprints[i] != 0) {
                    i = (i + 1) & mask;
                }
                fingerprints[i] = f;
                places[i] = oldPlaces[s];
                lengths[i] = oldLengths[s];
                slabs.own(length(i), places[i], i);
                size++;
            }
        }
    }

    private void allocate(int capacity) {
        fingerprints = new long[capacity];
        places = new int[capacity];
        lengths = new byte[capacity];
        size = 0;
        hand = 0;
        sweep = 0;
    }

    /** The smallest power of two that holds {@code max} records at most four fifths full. */
    static int capacityFor(int max) {
        long needed = Math.max(MIN_CAPACITY, ((long) max * 5 + 3) / 4);
        long capacity = Long.bitCount(needed) == 1 ? needed : Long.highestOneBit(needed) << 1;
        return (int) Math.min(capacity, 1 << 30);
    }
}
