package dev.quota.core;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

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
    private final int counters;
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
        this.counters = counters;
        // the current, partly filled slot and the whole slots of the window before it
        this.ring = new Slot[(int) (window.toMillis() / slotMillis) + 1];
        for (int i = 0; i < ring.length; i++) {
            ring[i] = new Slot();
        }
    }

    /** Counts {@code weight} for {@code who} now. */
    synchronized void add(Customer who, long weight) {
        long number = Math.floorDiv(clock.millis(), slotMillis);
        Slot slot = ring[(int) Math.floorMod(number, (long) ring.length)];
        if (slot.number != number) {
            slot.restart(number);
        }
        slot.add(new Key(who.id(), who.kind()), weight, counters);
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
            candidates.addAll(slot.counts.keySet());
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
            Counter counter = slot.counts.get(key);
            if (counter != null) {
                count += counter.count;
                overcount += counter.overcount;
            } else if (slot.counts.size() >= counters) {
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

    private static final class Counter {
        long count;
        long overcount;

        Counter(long count, long overcount) {
            this.count = count;
            this.overcount = overcount;
        }
    }

    /** One slot's summary. Slot number {@link Long#MIN_VALUE}: never used. */
    private static final class Slot {
        long number = Long.MIN_VALUE;
        final Map<Key, Counter> counts = new HashMap<>();

        void restart(long newNumber) {
            number = newNumber;
            counts.clear();
        }

        void add(Key key, long weight, int counters) {
            Counter counter = counts.get(key);
            if (counter != null) {
                counter.count += weight;
            } else if (counts.size() < counters) {
                counts.put(key, new Counter(weight, 0));
            } else {
                // a linear scan: counters is small (100), and a full summary is the flood case only
                Key smallest = key;
                long least = Long.MAX_VALUE;
                for (Map.Entry<Key, Counter> entry : counts.entrySet()) {
                    if (entry.getValue().count < least) {
                        smallest = entry.getKey();
                        least = entry.getValue().count;
                    }
                }
                counts.remove(smallest);
                counts.put(key, new Counter(least + weight, least));
            }
        }

        /** The smallest count held; called on a full summary only. */
        long smallest() {
            long least = Long.MAX_VALUE;
            for (Counter counter : counts.values()) {
                least = Math.min(least, counter.count);
            }
            return least;
        }
    }
}
