package dev.quota.core.internal.top;

import dev.quota.core.Customer;
import dev.quota.core.TopCustomers;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
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
 * 100 counters, 5 minutes of 1-minute slots: at most 600 counters per stripe, whatever the number
 * of customers.
 *
 * <p>Stripes. {@link #add} runs on every request thread, so one lock for the whole sketch would
 * serialize every decision of the JVM. The sketch starts as one stripe (one ring of slots, one
 * lock); a thread that finds its stripe's lock taken adds a stripe, doubling them up to the
 * number of processors rounded up to a power of two, and moves to another. A thread keeps
 * to its stripe ({@link #PROBES}), so on a quiet machine there is one stripe and the counts are
 * those of one summary. A read merges the stripes: a customer's count is the sum of its counts
 * in every stripe (each never below the truth of that stripe's share, so the sum is never below
 * the truth), its overcount the sum of theirs; a customer with more than {@code 1/counters} of a
 * slot's weight has more than that share of at least one stripe's slot, so it is a candidate.
 *
 * <p>Thread safety: a stripe's slots are guarded by its lock, held briefly and without waiting
 * for anything; {@link #stripes} only grows, under this object's lock, and is read without it.
 */
final class HeavyHitters {

    private static final Comparator<TopCustomers.Entry> RANKING =
            Comparator.comparingLong(TopCustomers.Entry::count).reversed()
                    .thenComparing(Comparator.comparingLong(TopCustomers.Entry::atLeast).reversed())
                    .thenComparing(TopCustomers.Entry::customer)
                    .thenComparing(TopCustomers.Entry::kind);
    /** Each thread's place among the stripes: fixed for a thread until its stripe is contended. */
    private static final ThreadLocal<int[]> PROBES =
            ThreadLocal.withInitial(() -> new int[] {mix(Thread.currentThread().getId())});

    private final Clock clock;
    private final long slotMillis;
    private final int ringLength;
    private final int counters;
    private final int maxStripes;
    private volatile Stripe[] stripes;

    /**
     * @param window   how far back counts reach, a whole number of slots
     * @param slot     the length of one slot
     * @param counters customers counted per slot, {@code >= 1}
     */
    HeavyHitters(Clock clock, Duration window, Duration slot, int counters) {
        this(clock, window, slot, counters, Runtime.getRuntime().availableProcessors());
    }

    /** As above, with at most {@code processors} (rounded up to a power of two) stripes. */
    HeavyHitters(Clock clock, Duration window, Duration slot, int counters, int processors) {
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
        this.ringLength = (int) (window.toMillis() / slotMillis) + 1;
        this.counters = counters;
        this.maxStripes = Integer.highestOneBit(Math.max(1, Math.min(processors, 1 << 10)) * 2 - 1);
        this.stripes = new Stripe[] {new Stripe(ringLength, counters)};
    }

    /** Counts {@code weight} for {@code who} now. */
    void add(Customer who, long weight) {
        int[] probe = PROBES.get();
        Stripe[] current = stripes;
        Stripe stripe = current[probe[0] & (current.length - 1)];
        if (!stripe.lock.tryLock()) {
            // contended: this thread moves on, to a stripe that may be new
            probe[0] = mix(probe[0]);
            current = current.length < maxStripes ? grow(current) : current;
            stripe = current[probe[0] & (current.length - 1)];
            stripe.lock.lock();
        }
        try {
            stripe.add(Math.floorDiv(clock.millis(), slotMillis), who, weight);
        } finally {
            stripe.lock.unlock();
        }
    }

    /** Counts {@code weight} for {@code who} now in stripe {@code index}, growing to it: the test's seam. */
    void addTo(int index, Customer who, long weight) {
        if (index < 0 || index >= maxStripes) {
            throw new IllegalArgumentException("stripe must be 0 to " + (maxStripes - 1) + " but was " + index);
        }
        Stripe[] current = stripes;
        while (current.length <= index) {
            current = grow(current);
        }
        Stripe stripe = current[index];
        stripe.lock.lock();
        try {
            stripe.add(Math.floorDiv(clock.millis(), slotMillis), who, weight);
        } finally {
            stripe.lock.unlock();
        }
    }

    /** The stripes now (at least one, at most the processors rounded up to a power of two). */
    int stripeCount() {
        return stripes.length;
    }

    /** Doubles the stripes unless another thread already did; the stripes now. */
    private synchronized Stripe[] grow(Stripe[] seen) {
        Stripe[] current = stripes;
        if (current != seen || current.length >= maxStripes) {
            return current;
        }
        Stripe[] grown = Arrays.copyOf(current, current.length * 2);
        for (int i = current.length; i < grown.length; i++) {
            grown[i] = new Stripe(ringLength, counters);
        }
        stripes = grown;
        return grown;
    }

    private static int mix(long seed) {
        long z = seed * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 32)) * 0xD6E8FEB86659FD93L;
        return (int) (z ^ (z >>> 32));
    }

    /** Where the window starts now: the start of its oldest slot. */
    Instant since() {
        long number = Math.floorDiv(clock.millis(), slotMillis);
        return Instant.ofEpochMilli((number - ringLength + 1) * slotMillis);
    }

    /** The {@code n} customers with the highest counts in the window, highest first. */
    List<TopCustomers.Entry> top(int n) {
        long now = Math.floorDiv(clock.millis(), slotMillis);
        Stripe[] all = stripes;
        Set<Key> candidates = new LinkedHashSet<>();
        for (Stripe stripe : all) {
            stripe.lock.lock();
            try {
                for (Slot slot : stripe.live(now)) {
                    for (int i = 0; i < slot.size; i++) {
                        candidates.add(new Key(Objects.requireNonNull(slot.ids[i]), Objects.requireNonNull(slot.kinds[i])));
                    }
                }
            } finally {
                stripe.lock.unlock();
            }
        }
        List<TopCustomers.Entry> entries = new ArrayList<>(candidates.size());
        for (Key key : candidates) {
            entries.add(estimate(all, now, key));
        }
        entries.sort(RANKING);
        return List.copyOf(entries.subList(0, Math.min(n, entries.size())));
    }

    /** The count of one customer in the window, with its overcount; a count of 0 when never seen. */
    TopCustomers.Entry of(Customer who) {
        return estimate(stripes, Math.floorDiv(clock.millis(), slotMillis), new Key(who.id(), who.kind()));
    }

    private static TopCustomers.Entry estimate(Stripe[] all, long now, Key key) {
        long count = 0;
        long overcount = 0;
        for (Stripe stripe : all) {
            stripe.lock.lock();
            try {
                for (Slot slot : stripe.live(now)) {
                    int at = slot.find(key.id(), key.kind());
                    if (at >= 0) {
                        count += slot.counts[at];
                        overcount += slot.overcounts[at];
                    } else if (slot.full()) {
                        // the customer may have been counted here and evicted: at most the slot's smallest count
                        long floor = slot.smallest();
                        count += floor;
                        overcount += floor;
                    }
                }
            } finally {
                stripe.lock.unlock();
            }
        }
        return new TopCustomers.Entry(key.id(), key.kind(), count, overcount);
    }

    /** One stripe: its ring of slots, guarded by its lock. */
    private static final class Stripe {
        final ReentrantLock lock = new ReentrantLock();
        /** Slot number n lives at {@code ring[n % ring.length]}; the window's slots are the last {@code ring.length}. */
        final Slot[] ring;

        Stripe(int ringLength, int counters) {
            ring = new Slot[ringLength];
            for (int i = 0; i < ring.length; i++) {
                ring[i] = new Slot(counters);
            }
        }

        void add(long number, Customer who, long weight) {
            Slot slot = ring[(int) Math.floorMod(number, (long) ring.length)];
            if (slot.number != number) {
                slot.restart(number);
            }
            slot.add(who.id(), who.kind(), weight);
        }

        /** The slots of the window that ends with slot {@code now}. */
        List<Slot> live(long now) {
            List<Slot> live = new ArrayList<>(ring.length);
            for (Slot slot : ring) {
                if (slot.number > now - ring.length && slot.number <= now) {
                    live.add(slot);
                }
            }
            return live;
        }
    }

    private record Key(String id, Customer.Kind kind) {
    }

    /**
     * One slot's summary: the counters as a binary min-heap on count, so the counter to evict is at
     * the root and a count that grows sinks in O(log counters) steps. A customer's place in the heap
     * is found through {@link #table}: open addressing by the hash of its id and kind, linear
     * probing, at most half full, so counting a customer allocates nothing (no key, no map entry,
     * no boxed index). Slot number {@link Long#MIN_VALUE}: never used.
     */
    private static final class Slot {
        long number = Long.MIN_VALUE;
        /** The heap, by place: each counter's customer (id and kind), count and overcount. */
        final @Nullable String[] ids;
        final Customer.@Nullable Kind[] kinds;
        final long[] counts;
        final long[] overcounts;
        /** Where each counter's customer is in {@link #table}. */
        final int[] entry;
        /** The index: a counter's place in the heap plus one, by the customer's hash; 0 where none. */
        final int[] table;
        int size;

        Slot(int counters) {
            ids = new String[counters];
            kinds = new Customer.Kind[counters];
            counts = new long[counters];
            overcounts = new long[counters];
            entry = new int[counters];
            table = new int[Integer.highestOneBit(Math.max(1, counters) * 2 - 1) << 1];
        }

        void restart(long newNumber) {
            number = newNumber;
            Arrays.fill(ids, 0, size, null);
            Arrays.fill(kinds, 0, size, null);
            Arrays.fill(table, 0);
            size = 0;
        }

        boolean full() {
            return size == ids.length;
        }

        /** The smallest count held: the root's. */
        long smallest() {
            return counts[0];
        }

        /** The customer's place in the heap, or -1 when this slot does not count it. */
        int find(String id, Customer.Kind kind) {
            int mask = table.length - 1;
            for (int t = home(id, kind, mask); table[t] != 0; t = (t + 1) & mask) {
                int at = table[t] - 1;
                if (kinds[at] == kind && id.equals(ids[at])) {
                    return at;
                }
            }
            return -1;
        }

        void add(String id, Customer.Kind kind, long weight) {
            int at = find(id, kind);
            if (at >= 0) {
                counts[at] += weight;
                siftDown(at);
            } else if (size < ids.length) {
                int i = size++;
                ids[i] = id;
                kinds[i] = kind;
                counts[i] = weight;
                overcounts[i] = 0;
                index(i);
                siftUp(i);
            } else {
                // Space-Saving: the smallest counter goes to the newcomer, its count kept as overcount
                unindex(0);
                long least = counts[0];
                ids[0] = id;
                kinds[0] = kind;
                counts[0] = least + weight;
                overcounts[0] = least;
                index(0);
                siftDown(0);
            }
        }

        /** Enters the customer of heap place {@code at} into the table. */
        private void index(int at) {
            int mask = table.length - 1;
            int t = home(Objects.requireNonNull(ids[at]), Objects.requireNonNull(kinds[at]), mask);
            while (table[t] != 0) {
                t = (t + 1) & mask;
            }
            table[t] = at + 1;
            entry[at] = t;
        }

        /**
         * Takes the customer of heap place {@code at} out of the table, then moves back each entry
         * after it in its run that may take its place (a lookup stops at the first empty place).
         */
        private void unindex(int at) {
            int mask = table.length - 1;
            int gap = entry[at];
            table[gap] = 0;
            for (int t = (gap + 1) & mask; table[t] != 0; t = (t + 1) & mask) {
                int other = table[t] - 1;
                int home = home(Objects.requireNonNull(ids[other]), Objects.requireNonNull(kinds[other]), mask);
                // it may fill the gap when the gap lies on its way from its home to where it is
                if (((t - home) & mask) >= ((t - gap) & mask)) {
                    table[gap] = table[t];
                    entry[other] = gap;
                    table[t] = 0;
                    gap = t;
                }
            }
        }

        private static int home(String id, Customer.Kind kind, int mask) {
            // the ordinal tells the kinds apart in a hash of this JVM's table: never stored
            @SuppressWarnings("EnumOrdinal")
            int h = id.hashCode() * 31 + kind.ordinal();
            return (h ^ h >>> 16) & mask;
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
            String id = ids[a];
            ids[a] = ids[b];
            ids[b] = id;
            Customer.Kind kind = kinds[a];
            kinds[a] = kinds[b];
            kinds[b] = kind;
            long count = counts[a];
            counts[a] = counts[b];
            counts[b] = count;
            long over = overcounts[a];
            overcounts[a] = overcounts[b];
            overcounts[b] = over;
            int t = entry[a];
            entry[a] = entry[b];
            entry[b] = t;
            table[entry[a]] = a + 1;
            table[entry[b]] = b + 1;
        }
    }
}
