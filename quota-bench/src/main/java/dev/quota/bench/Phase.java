package dev.quota.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongToIntFunction;
import org.HdrHistogram.Histogram;
import org.jspecify.annotations.Nullable;

/**
 * Runs load against contenders for a fixed time: closed loop (each caller sends its next request
 * when the last one is answered) or paced (requests scheduled at a fixed rate; latency counts
 * from the scheduled time, so a limiter that falls behind is charged for the queue it causes).
 */
final class Phase {

    /** Picks the customer of a caller's next request. */
    interface Picker {
        int next(SplittableRandom random, int caller);
    }

    /** What a phase measured. */
    static final class Measured {
        long elapsedNanos;
        long admitted;
        long rejected;
        long errors;
        /** Bytes the load threads allocated while deciding (their own requests and whatever they combined). */
        long callerAllocatedBytes;
        final Histogram latency = Latencies.histogram();
        /** Latency of the watched customer's requests only; the others are in {@link #latency}. */
        final Histogram watchedLatency = Latencies.histogram();

        long decisions() {
            return admitted + rejected + errors;
        }

        synchronized void add(long admittedCount, long rejectedCount, long errorCount, Histogram all,
                              Histogram watched, long allocatedBytes) {
            callerAllocatedBytes += allocatedBytes;
            admitted += admittedCount;
            rejected += rejectedCount;
            errors += errorCount;
            latency.add(all);
            watchedLatency.add(watched);
        }
    }

    private Phase() {
    }

    /**
     * {@code callers} threads, caller {@code i} on instance {@code i % instances.length}, for
     * {@code durationNanos}. Requests of customer {@code watched} are timed apart.
     */
    static Measured closedLoop(Contender[] instances, int callers, Picker picker, long durationNanos,
                               @Nullable Tally tally, int watched) {
        Measured measured = new Measured();
        CountDownLatch ready = new CountDownLatch(callers);
        CountDownLatch go = new CountDownLatch(1);
        long[] window = new long[1];
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < callers; i++) {
            int caller = i;
            Contender contender = instances[i % instances.length];
            threads.add(new Thread(() -> {
                SplittableRandom random = new SplittableRandom(caller * 7919L + 17);
                CallerTotals totals = new CallerTotals(tally, watched);
                ready.countDown();
                await(go);
                totals.start();
                long end = window[0];
                while (true) {
                    long start = System.nanoTime();
                    if (start >= end) {
                        break;
                    }
                    int customer = picker.next(random, caller);
                    Outcome outcome = contender.acquire(customer);
                    totals.record(customer, outcome, System.nanoTime() - start);
                }
                totals.addTo(measured);
            }, "bench-caller-" + i));
        }
        return run(threads, ready, go, window, durationNanos, measured);
    }

    /**
     * {@code ratePerSecond} requests per second in total, from {@code threads} threads; request
     * {@code k} goes to customer {@code customerOf(k)} on instance {@code k % instances.length}.
     */
    static Measured paced(Contender[] instances, int threadCount, double ratePerSecond, LongToIntFunction customerOf,
                          long durationNanos, @Nullable Tally tally, int watched) {
        Measured measured = new Measured();
        CountDownLatch ready = new CountDownLatch(threadCount);
        CountDownLatch go = new CountDownLatch(1);
        long[] window = new long[1];
        double interval = 1e9 / ratePerSecond;
        AtomicLong tickets = new AtomicLong();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < threadCount; i++) {
            threads.add(new Thread(() -> {
                CallerTotals totals = new CallerTotals(tally, watched);
                ready.countDown();
                await(go);
                totals.start();
                long end = window[0];
                long begin = end - durationNanos;
                while (true) {
                    long k = tickets.getAndIncrement();
                    long scheduled = begin + (long) (k * interval);
                    if (scheduled >= end) {
                        break;
                    }
                    long now;
                    while ((now = System.nanoTime()) < scheduled) {
                        LockSupport.parkNanos(scheduled - now);
                    }
                    int customer = customerOf.applyAsInt(k);
                    Outcome outcome = instances[(int) (k % instances.length)].acquire(customer);
                    totals.record(customer, outcome, System.nanoTime() - scheduled);
                }
                totals.addTo(measured);
            }, "bench-paced-" + i));
        }
        return run(threads, ready, go, window, durationNanos, measured);
    }

    /**
     * Touches every customer {@code 0 .. customers-1} once, spread over {@code callers} threads
     * (caller {@code i} takes customers {@code i, i + callers, ...}), as fast as the limiter answers.
     */
    static Measured sweep(Contender[] instances, int callers, int customers, @Nullable Tally tally) {
        Measured measured = new Measured();
        CountDownLatch ready = new CountDownLatch(callers);
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < callers; i++) {
            int caller = i;
            Contender contender = instances[i % instances.length];
            threads.add(new Thread(() -> {
                long admitted = 0;
                long rejected = 0;
                long errors = 0;
                Histogram all = Latencies.histogram();
                ready.countDown();
                await(go);
                for (int customer = caller; customer < customers; customer += callers) {
                    long start = System.nanoTime();
                    Outcome outcome = contender.acquire(customer);
                    all.recordValue(System.nanoTime() - start);
                    if (tally != null) {
                        tally.count(customer, outcome);
                    }
                    if (outcome == Outcome.ADMITTED) {
                        admitted++;
                    } else if (outcome == Outcome.REJECTED) {
                        rejected++;
                    } else {
                        errors++;
                    }
                }
                measured.add(admitted, rejected, errors, all, Latencies.histogram(), 0);
            }, "bench-sweep-" + i));
        }
        return run(threads, ready, go, new long[1], 0, measured);
    }

    private static Measured run(List<Thread> threads, CountDownLatch ready, CountDownLatch go, long[] window,
                                long durationNanos, Measured measured) {
        threads.forEach(Thread::start);
        await(ready);
        long start = System.nanoTime();
        window[0] = start + durationNanos;
        go.countDown(); // the latch publishes window[0] to every thread
        for (Thread t : threads) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for the load threads", e);
            }
        }
        measured.elapsedNanos = System.nanoTime() - start;
        return measured;
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** One caller's counts and latencies, merged into the phase's {@link Measured} at the end. */
    private static final class CallerTotals {
        private final Histogram all = Latencies.histogram();
        private final Histogram mine = Latencies.histogram();
        private final @Nullable Tally tally;
        private final int watched;
        private long admitted;
        private long rejected;
        private long errors;
        private long allocatedAtStart;

        CallerTotals(@Nullable Tally tally, int watched) {
            this.tally = tally;
            this.watched = watched;
        }

        void record(int customer, Outcome outcome, long tookNanos) {
            (customer == watched ? mine : all).recordValue(tookNanos);
            if (tally != null) {
                tally.count(customer, outcome);
            }
            switch (outcome) {
                case ADMITTED:
                    admitted++;
                    break;
                case REJECTED:
                    rejected++;
                    break;
                default:
                    errors++;
                    break;
            }
        }

        /** Starts counting this thread's allocation (the measured window begins). */
        void start() {
            allocatedAtStart = MemoryMeter.allocatedByThisThread();
        }

        void addTo(Measured measured) {
            measured.add(admitted, rejected, errors, all, mine, MemoryMeter.allocatedByThisThread() - allocatedAtStart);
        }
    }
}
