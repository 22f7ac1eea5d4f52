package dev.quota.jcache;

import dev.quota.core.spi.Adjustment;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.Take;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * One JVM's concurrent decisions on one entry, merged into one change of it: while a change of an
 * entry is on its way to the grid, the decisions that arrive for the same entry wait, and the next
 * change carries all of them (up to {@link #MOST_MERGED}), each decided on the entry as the one
 * before it left it. Without it every caller races every other for the entry, this JVM's own
 * included, and a hot customer's entry admits one writer per round trip of the whole grid;
 * merged, a JVM has one change of an entry in flight, and the race is between JVMs.
 *
 * <p>Refunds, settles, reads and resets go to the store's compare-and-swap one change each
 * ({@link CasBuckets}), as without merging: they are not on a request's way in.
 *
 * <p>Each decision stays all or nothing on its own: a refused one leaves the entry as it found it
 * for the next, exactly as if they had gone one change each, in the order they are carried. A
 * change that loses a race takes on the decisions that came meanwhile and computes all of them
 * again on the entry as it now stands; its lost races count against the store's retry budget as
 * one change's. A change that fails (the grid unreachable, the retry budget spent) fails every
 * decision it carried.
 *
 * <p>Threads: the caller that finds no change of its entry on its way makes it (the leader) and
 * then hands the lead to the first caller that waited meanwhile; the others park until their
 * answer or the lead comes. Nothing is shared between entries but the map of entries in use.
 */
final class MergedDecisions implements Buckets {

    /**
     * The most decisions one change carries. A lost race computes all of them again, so a bound
     * keeps that work small while a change still carries every decision a JVM's request threads
     * have waiting on one customer.
     */
    static final int MOST_MERGED = 64;

    private final ConcurrentHashMap<String, Line> lines = new ConcurrentHashMap<>();
    private final CasBuckets cas;

    MergedDecisions(CasBuckets cas) {
        this.cas = cas;
    }

    /** Decides {@code group} in a change of its entry it may share with this JVM's other decisions. */
    @Override
    public List<ConsumeResult> consume(List<Take> group) {
        String entryKey = BucketEntry.entryKey(group.get(0).key().value());
        Waiter me = new Waiter(group);
        while (true) {
            Line line = lines.computeIfAbsent(entryKey, k -> new Line());
            boolean lead;
            synchronized (line) {
                if (line.retired) {
                    continue; // its last leader removed it before this caller got in: take the new one
                }
                lead = !line.busy;
                if (lead) {
                    line.busy = true;
                } else {
                    line.waiting.add(me);
                }
            }
            if (!lead && !me.awaitAnswerOrLead()) {
                return me.answer();
            }
            lead(entryKey, line, me);
            return me.answer();
        }
    }

    @Override
    public void adjust(List<Adjustment> group) {
        cas.adjust(group);
    }

    @Override
    public ConsumeResult peek(BucketKey key, BucketSpec spec) {
        return cas.peek(key, spec);
    }

    @Override
    public void reset(BucketKey key) {
        cas.reset(key);
    }

    /** How many decisions of entry {@code entryKey} wait for the next change: for tests. */
    int waiting(String entryKey) {
        Line line = lines.get(entryKey);
        if (line == null) {
            return 0;
        }
        synchronized (line) {
            return line.waiting.size();
        }
    }

    /** Number of entries with a change on its way or decisions waiting: for tests. */
    int entriesInUse() {
        return lines.size();
    }

    /**
     * Makes one change carrying {@code me} and those waiting on {@code line}, then passes the lead
     * on. A lost race takes on those that came meanwhile too: they go in the attempt that follows
     * rather than wait for this change to end.
     */
    private void lead(String entryKey, Line line, Waiter me) {
        List<Waiter> carried = new ArrayList<>();
        List<List<Take>> groups = new ArrayList<>();
        carried.add(me);
        groups.add(me.group);
        try {
            int races = 0;
            List<List<ConsumeResult>> results;
            while (true) {
                takeOn(line, carried, groups);
                results = cas.attempt(entryKey, groups);
                if (results != null) {
                    break;
                }
                cas.lostRace(entryKey, ++races);
            }
            for (int i = 0; i < carried.size(); i++) {
                carried.get(i).answered(results.get(i), null);
            }
        } catch (RuntimeException e) {
            for (Waiter w : carried) {
                w.answered(null, e);
            }
        } catch (Error e) {
            // the leader's own thread rethrows it; the others must not wait for an answer forever
            IllegalStateException carrying = new IllegalStateException("the change of entry " + entryKey
                    + " that carried this decision failed", e);
            for (Waiter w : carried.subList(1, carried.size())) {
                w.answered(null, carrying);
            }
            throw e;
        } finally {
            Waiter next;
            synchronized (line) {
                next = line.waiting.poll();
                if (next == null) {
                    line.busy = false;
                    line.retired = true;
                    lines.remove(entryKey, line);
                }
            }
            if (next != null) {
                next.lead();
            }
        }
    }

    /** Moves decisions waiting on {@code line} into the change, up to {@link #MOST_MERGED} in all. */
    private static void takeOn(Line line, List<Waiter> carried, List<List<Take>> groups) {
        synchronized (line) {
            while (carried.size() < MOST_MERGED && !line.waiting.isEmpty()) {
                Waiter w = line.waiting.poll();
                carried.add(w);
                groups.add(w.group);
            }
        }
    }

    /** The callers of one entry: whether a change is on its way, and who waits for the next. */
    private static final class Line {
        final ArrayDeque<Waiter> waiting = new ArrayDeque<>();
        boolean busy;
        /** Removed from the map: a caller that finds it so takes the entry's new line. */
        boolean retired;
    }

    /** One caller's decision: its group, then its answer or the lead. */
    private static final class Waiter {
        private static final int WAITING = 0;
        private static final int ANSWERED = 1;
        private static final int LEADS = 2;

        final List<Take> group;
        private final Thread thread = Thread.currentThread();
        private volatile int state = WAITING;
        private @Nullable List<ConsumeResult> results;
        private @Nullable RuntimeException failure;

        Waiter(List<Take> group) {
            this.group = group;
        }

        /** Any thread: the change that carried this decision ended; wakes its caller. */
        void answered(@Nullable List<ConsumeResult> results, @Nullable RuntimeException failure) {
            this.results = results;
            this.failure = failure;
            state = ANSWERED;
            LockSupport.unpark(thread);
        }

        /** Any thread: this caller makes the next change. */
        void lead() {
            state = LEADS;
            LockSupport.unpark(thread);
        }

        /**
         * The caller's thread: parks until answered (false) or given the lead (true). An interrupt
         * does not end the wait (the change it waits for is already on its way and ends by the
         * grid's own timeouts, as the caller's own call would); the interrupt status is kept.
         */
        boolean awaitAnswerOrLead() {
            boolean interrupted = false;
            int s;
            while ((s = state) == WAITING) {
                LockSupport.park(this);
                interrupted |= Thread.interrupted();
            }
            if (interrupted) {
                thread.interrupt();
            }
            return s == LEADS;
        }

        /**
         * The caller's thread, once answered: its results, or the change's failure (the same
         * exception for every decision the change carried; the store wraps it per call).
         */
        List<ConsumeResult> answer() {
            RuntimeException f = failure;
            if (f != null) {
                throw f;
            }
            return Objects.requireNonNull(results, "answered without results");
        }
    }
}
