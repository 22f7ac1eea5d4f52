package dev.quota.core;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Weighted counts per customer over a sliding window, in bounded memory: the window is cut into
 * slots of {@code slot} length, and each slot keeps a Space-Saving summary (Metwally, Agrawal and
 * El Abbadi, 2005) of at most {@code counters} customers.
 *
 * <p>Space-Saving in one slot: a customer already counted adds its weight; a new one takes a free
 * counter, or, when all are taken, the counter with the smallest count, inheriting that count as
 * its possible overcount. So a count is never below the truth and at most its overcount above it,
 * and any customer with more than {@code 1/counters} of the slot's total weight is in the summary.
 * Over the window a customer's count is the sum over the live slots, where a slot that does not
 * hold it adds its smallest count (0 when it has a free counter) to the count and to the overcount.
 * 100 counters, 5 minutes of 1-minute slots: at most 600 counters, whatever the number of customers.
 *
 * <p>Thread safety: every method holds this object's lock, briefly and without waiting for anything;
 * {@link #add} is called on the request threads.
 */
final class HeavyHitters {

    private static final Comparator<TopCustomers.Entry> RANKING =
            Comparator.comparingLong(TopCustomers.Entry::count).reversed()
                    .thenComparing(Comparator.comparingLong(TopCustomers.Entry::atLeast).reversed())
                    .thenComparing(TopCustomers.Entry::customer)
                    .thenComparing(TopCustomers.Entry::kind);

    private final Clock clock;
    private final long slotMillis;
    /** Slot number n lives at {@code ring[n % ring.length]}; the window's slots are the last {@code ring.length}. */
    private final Slot[] ring;

    /**
     * @param window   how far back counts reach, a whole number of slots
     * @param slot     the length of one slot
     * @param counters customers counted per slot, {@code >= 1}
     */
    HeavyHitters(Clock clock, Duration window, Duration slot, int counters) {
        if (counters < 1) {
            throw new IllegalArgumentException("counters must be >= 1 but was " + counters);
        }
        if (slot.toMillis() < 1 || window.toMillis() % slot.toMillis() != 0 || window.compareTo(slot) < 0) {
            throw new IllegalArgumentException("window must be a whole number of slots but was " + window
                    + " for slots of " + slot);
        }
        this.clock = clock;
        this.slotMillis = slot.toMillis();
        // the current, partly filled slot and the whole slots of the window before it
        this.ring = new Slot[(int) (window.toMillis() / slotMillis) + 1];
        for (int i = 0; i < ring.length; i++) {
            ring[i] = new Slot(counters);
        }
    }

    /** Counts {@code weight} for {@code who} now. */
    synchronized void add(Customer who, long weight) {
        long number = Math.floorDiv(clock.millis(), slotMillis);
        Slot slot = ring[(int) Math.floorMod(number, (long) ring.length)];
        if (slot.number != number) {
            slot.restart(number);
        }
        slot.add(new Key(who.id(), who.kind()), weight);
    }

    /** Where the window starts now: the start of its oldest slot. */
    Instant since() {
        long number = Math.floorDiv(clock.millis(), slotMillis);
        return Instant.ofEpochMilli((number - ring.length + 1) * slotMillis);
    }

    /** The {@code n} customers with the highest counts in the window, highest first. */
    synchronized List<TopCustomers.Entry> top(int n) {
        List<Slot> live = live();
        Set<Key> candidates = new LinkedHashSet<>();
        for (Slot slot : live) {
            candidates.addAll(slot.index.keySet());
        }
        List<TopCustomers.Entry> entries = new ArrayList<>(candidates.size());
        for (Key key : candidates) {
            entries.add(estimate(live, key));
        }
        entries.sort(RANKING);
        return List.copyOf(entries.subList(0, Math.min(n, entries.size())));
    }

    /** The count of one customer in the window, with its overcount; a count of 0 when never seen. */
    synchronized TopCustomers.Entry of(Customer who) {
        return estimate(live(), new Key(who.id(), who.kind()));
    }

    private List<Slot> live() {
        long now = Math.floorDiv(clock.millis(), slotMillis);
        List<Slot> live = new ArrayList<>(ring.length);
        for (Slot slot : ring) {
            if (slot.number > now - ring.length && slot.number <= now) {
                live.add(slot);
            }
        }
        return live;
    }

    private TopCustomers.Entry estimate(List<Slot> live, Key key) {
        long count = 0;
        long overcount = 0;
        for (Slot slot : live) {
            Integer at = slot.index.get(key);
            if (at != null) {
                count += slot.counts[at];
                overcount += slot.overcounts[at];
            } else if (slot.full()) {
                // the customer may have been counted here and evicted: at most the slot's smallest count
                long floor = slot.smallest();
                count += floor;
                overcount += floor;
            }
        }
        return new TopCustomers.Entry(key.id(), key.kind(), count, overcount);
    }

    private record Key(String id, Customer.Kind kind) {
    }

    /**
     * One slot's summary: the counters as a binary min-heap on count, so the counter to evict is at
     * the root and a count that grows sinks in O(log counters) steps; {@code index} finds a
     * customer's place in the heap. Slot number {@link Long#MIN_VALUE}: never used.
     */
    private static final class Slot {
        long number = Long.MIN_VALUE;
        final Map<Key, Integer> index = new HashMap<>();
        final @Nullable Key[] keys;
        final long[] counts;
        final long[] overcounts;
        int size;

        Slot(int counters) {
            keys = new Key[counters];
            counts = new long[counters];
            overcounts = new long[counters];
        }

        void restart(long newNumber) {
            number = newNumber;
            index.clear();
            Arrays.fill(keys, 0, size, null);
            size = 0;
        }

        boolean full() {
            return size == keys.length;
        }

        /** The smallest count held: the root's. */
        long smallest() {
            return counts[0];
        }

        void add(Key key, long weight) {
            Integer at = index.get(key);
            if (at != null) {
                counts[at] += weight;
                siftDown(at);
            } else if (size < keys.length) {
                int i = size++;
                keys[i] = key;
                counts[i] = weight;
                overcounts[i] = 0;
                index.put(key, i);
                siftUp(i);
            } else {
                // Space-Saving: the smallest counter goes to the newcomer, its count kept as overcount
                index.remove(keys[0]);
                long least = counts[0];
                keys[0] = key;
                counts[0] = least + weight;
                overcounts[0] = least;
                index.put(key, 0);
                siftDown(0);
            }
        }

        private void siftUp(int i) {
            while (i > 0) {
                int parent = (i - 1) / 2;
                if (counts[i] >= counts[parent]) {
                    return;
                }
                swap(i, parent);
                i = parent;
            }
        }

        private void siftDown(int i) {
            while (true) {
                int least = i;
                int left = 2 * i + 1;
                int right = left + 1;
                if (left < size && counts[left] < counts[least]) {
                    least = left;
                }
                if (right < size && counts[right] < counts[least]) {
                    least = right;
                }
                if (least == i) {
                    return;
                }
                swap(i, least);
                i = least;
            }
        }

        private void swap(int a, int b) {
            Key keyA = Objects.requireNonNull(keys[a]);
            Key keyB = Objects.requireNonNull(keys[b]);
            keys[a] = keyB;
            keys[b] = keyA;
            long count = counts[a];
            counts[a] = counts[b];
            counts[b] = count;
            long over = overcounts[a];
            overcounts[a] = overcounts[b];
            overcounts[b] = over;
            index.put(keyB, a);
            index.put(keyA, b);
        }
    }
}
