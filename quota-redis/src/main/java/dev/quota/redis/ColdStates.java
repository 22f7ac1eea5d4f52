package dev.quota.redis;

import org.jspecify.annotations.Nullable;

/**
 * The records of keys not used lately ({@link StateTemplates}), by a 64-bit fingerprint of the key:
 * an open-addressing table with linear probing, at most four fifths full, so a key costs its record
 * and 13 bytes a slot (fingerprint, record, read flag), not a map entry and the key's string. At
 * most {@code max} records; past that, one is forgotten by the clock (second chance): a record read
 * since the hand last passed it is passed over once.
 *
 * <p>The combiner's alone, like {@link KeyStates}.
 */
final class ColdStates {

    private static final int MIN_CAPACITY = 64;
    /** Slots looked at, from the sweep position, for expired records per record added. */
    private static final int SWEEP = 2;

    private final int max;
    private final int maxCapacity;
    /** 0: an empty slot. */
    private long[] fingerprints;
    private long[][] records;
    /** Set when a record is read; cleared by the clock hand passing it. */
    private boolean[] used;
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

    /** The record of {@code fingerprint}, unless there is none or it expired by {@code nowNanos}. */
    long @Nullable [] get(long fingerprint, long nowNanos) {
        int slot = find(fingerprint);
        if (slot < 0) {
            return null;
        }
        long[] rec = records[slot];
        if (nowNanos - rec[StateTemplates.EXPIRES] >= 0) {
            deleteAt(slot);
            return null;
        }
        used[slot] = true;
        return rec;
    }

    /** Keeps {@code rec} for {@code fingerprint}; past the bound, the clock forgets one record first. */
    void put(long fingerprint, long[] rec, long nowNanos) {
        if (max == 0) {
            return;
        }
        sweepExpired(nowNanos);
        int slot = find(fingerprint);
        if (slot >= 0) {
            records[slot] = rec;
            return;
        }
        if (size >= max) {
            evictOne(nowNanos);
        } else if (size + 1 > fingerprints.length / 5 * 4 && fingerprints.length < maxCapacity) {
            grow();
        }
        int mask = fingerprints.length - 1;
        int i = (int) fingerprint & mask;
        while (fingerprints[i] != 0) {
            i = (i + 1) & mask;
        }
        fingerprints[i] = fingerprint;
        records[i] = rec;
        used[i] = false;
        size++;
    }

    /** Forgets {@code fingerprint}'s record, if there is one. */
    void remove(long fingerprint) {
        int slot = find(fingerprint);
        if (slot >= 0) {
            deleteAt(slot);
        }
    }

    /** Forgets every record. */
    void clear() {
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

    /** Idle records leave as new ones come, not only at the bound. */
    private void sweepExpired(long nowNanos) {
        for (int n = 0; n < SWEEP && size > 0; n++) {
            sweep &= fingerprints.length - 1;
            if (fingerprints[sweep] != 0 && nowNanos - records[sweep][StateTemplates.EXPIRES] >= 0) {
                deleteAt(sweep); // a later record may have moved into this slot: looked at next time
            } else {
                sweep++;
            }
        }
    }

    /** Forgets an expired record, else the first the hand finds unread since it last passed. */
    private void evictOne(long nowNanos) {
        int mask = fingerprints.length - 1;
        while (true) {
            hand &= mask;
            if (fingerprints[hand] != 0) {
                if (nowNanos - records[hand][StateTemplates.EXPIRES] >= 0 || !used[hand]) {
                    deleteAt(hand);
                    return;
                }
                used[hand] = false;
            }
            hand++;
        }
    }

    /**
     * Empties {@code slot} and moves back the records after it that probed past it, so every
     * record stays reachable from its home slot without tombstones.
     */
    private void deleteAt(int slot) {
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
                fingerprints[hole] = f;
                records[hole] = records[j];
                used[hole] = used[j];
                hole = j;
            }
        }
        fingerprints[hole] = 0;
        records[hole] = null;
        used[hole] = false;
        size--;
    }

    private void grow() {
        long[] oldFingerprints = fingerprints;
        long[][] oldRecords = records;
        boolean[] oldUsed = used;
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
                records[i] = oldRecords[s];
                used[i] = oldUsed[s];
                size++;
            }
        }
    }

    private void allocate(int capacity) {
        fingerprints = new long[capacity];
        records = new long[capacity][];
        used = new boolean[capacity];
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
