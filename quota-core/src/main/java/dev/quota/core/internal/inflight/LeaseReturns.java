package dev.quota.core.internal.inflight;

import dev.quota.core.QuotaDecision;
import dev.quota.core.QuotaListener;
import dev.quota.core.QuotaService;
import dev.quota.core.QuotaStoreException;
import dev.quota.core.spi.Adjustment;
import dev.quota.core.spi.QuotaStore;
import dev.quota.core.spi.StoreFailures;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * In-flight leases given back off the thread that ends the response
 * ({@link QuotaService#releaseLater}), several requests' leases in one store call
 * ({@link QuotaStore#adjust} with {@link Adjustment#leaseRelease} entries).
 *
 * <p>A return is queued by the caller that won its decision's release (once per decision), with
 * the leases its receipt holds and the store that holds them, so each lease is given back exactly once. The queue is drained by one job at
 * a time on the {@link Executor} ({@link dev.quota.core.QuotaServiceBuilder#leaseReturns}): {@link #draining} is
 * set by the caller that schedules the job and cleared by the job only when it found the queue
 * empty, then checked once more, so a return queued while the job was finishing is never left
 * behind without a job. While the job waits for the store, further returns gather in the queue and
 * go out together in its next call: under load, one store call carries the leases of every request
 * that ended during the previous call's round trip. A batch never names one lease set twice (the
 * store's {@code adjust} takes each key once): a second lease of the same set goes in a further
 * call of the same batch.
 *
 * <p>With a direct executor ({@code Runnable::run}) the return runs on the caller's thread, alone:
 * one store call per request, as {@link QuotaService#release} makes. A store failure is logged and
 * counted ({@link QuotaListener#onStoreFailure}); the lease then comes back at its lease timeout.
 * Every decision's return is told to the listeners once ({@link QuotaListener#onRelease}), after
 * its store call.
 */
public final class LeaseReturns {

    private static final Logger log = LoggerFactory.getLogger(QuotaService.class);

    /** The most decisions one drain pass takes from the queue: a bound on one store call's script. */
    static final int MOST_PER_BATCH = 256;

    private final Executor executor;
    private final QuotaListener listener;
    private final ConcurrentLinkedQueue<Return> queue = new ConcurrentLinkedQueue<>();
    /** Whether a drain job is scheduled or running: at most one is. */
    private final AtomicBoolean draining = new AtomicBoolean();
    /** Returns queued since the start. */
    private final AtomicLong queued = new AtomicLong();
    /**
     * Returns whose store call has finished (or failed) since the start: written only under this
     * object's lock (with {@code notifyAll}, for {@link #await}), read without it by {@link #mark},
     * which every decision takes: a lock there would be one every decision of the JVM enters.
     */
    private volatile long returned;

    /** Returns given back on {@code executor}; their store failures and releases told to {@code listener}. */
    public LeaseReturns(Executor executor, QuotaListener listener) {
        this.executor = executor;
        this.listener = listener;
    }

    /** One decision's return: the in-flight leases its receipt holds, and the store that holds them. */
    private record Return(QuotaDecision decision, QuotaStore store, List<Adjustment> leases) {
    }

    /**
     * Queues the return of {@code decision}'s {@code leases}, held by {@code store}; its receipt's
     * release was won by the caller.
     */
    public void add(QuotaDecision decision, QuotaStore store, List<Adjustment> leases) {
        queue.add(new Return(decision, store, leases));
        queued.incrementAndGet();
        schedule();
    }

    private void schedule() {
        if (draining.compareAndSet(false, true)) {
            try {
                executor.execute(this::drain);
            } catch (RejectedExecutionException e) {
                drain(); // the executor is shut down (the service is closing): given back here
            }
        }
    }

    /**
     * A mark to take before a decision: the returns queued so far, or {@link #NONE_PENDING} when
     * every one of them has had its store call. A return that completes while the decision runs
     * still counts: the decision may have been refused for that very lease.
     */
    public long mark() {
        long target = queued.get();
        // a volatile read: no lock on the decision path (DecisionPathBench, decide at 16 threads)
        return returned < target ? target : NONE_PENDING;
    }

    /** {@link #mark()} when no return was on its way. */
    public static final long NONE_PENDING = -1;

    /**
     * Waits, at most {@code max}, until every return queued before this call has had its store call.
     *
     * @return whether they all did within {@code max}
     * @throws InterruptedException if the thread is interrupted while waiting
     */
    boolean await(Duration max) throws InterruptedException {
        return await(queued.get(), max);
    }

    /**
     * Waits, at most {@code max}, until the returns counted by {@code mark} ({@link #mark()}) have had
     * their store call.
     *
     * @return whether they all did within {@code max}
     * @throws InterruptedException if the thread is interrupted while waiting
     */
    public boolean await(long target, Duration max) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        synchronized (this) {
            while (returned < target) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                wait(Math.max(1, left / 1_000_000));
            }
            return true;
        }
    }

    /** The drain job: batches until the queue is empty. Only one runs at a time ({@link #draining}). */
    private void drain() {
        while (true) {
            List<Return> batch = new ArrayList<>();
            Return next;
            while (batch.size() < MOST_PER_BATCH && (next = queue.poll()) != null) {
                batch.add(next);
            }
            if (batch.isEmpty()) {
                draining.set(false);
                // a return queued after the poll above but before the flag was cleared found it set
                if (queue.isEmpty() || !draining.compareAndSet(false, true)) {
                    return;
                }
                continue;
            }
            send(batch);
        }
    }

    /** The leases of {@code batch}, one {@code adjust} call per store (more when a lease set repeats). */
    private void send(List<Return> batch) {
        try {
            IdentityHashMap<QuotaStore, List<List<Adjustment>>> calls = new IdentityHashMap<>(2);
            IdentityHashMap<QuotaStore, List<Set<String>>> keysOf = new IdentityHashMap<>(2);
            for (Return back : batch) {
                QuotaStore store = back.store();
                List<List<Adjustment>> rounds = calls.computeIfAbsent(store, s -> new ArrayList<>(1));
                List<Set<String>> keys = keysOf.computeIfAbsent(store, s -> new ArrayList<>(1));
                for (Adjustment lease : back.leases()) {
                    int round = 0;
                    while (round < rounds.size() && keys.get(round).contains(lease.key().value())) {
                        round++;
                    }
                    if (round == rounds.size()) {
                        rounds.add(new ArrayList<>());
                        keys.add(new HashSet<>());
                    }
                    rounds.get(round).add(lease);
                    keys.get(round).add(lease.key().value());
                }
            }
            for (Map.Entry<QuotaStore, List<List<Adjustment>>> call : calls.entrySet()) {
                for (List<Adjustment> leases : call.getValue()) {
                    give(call.getKey(), leases);
                }
            }
            for (Return back : batch) {
                listener.onRelease(back.decision());
            }
        } finally {
            synchronized (this) {
                returned += batch.size();
                notifyAll();
            }
        }
    }

    private void give(QuotaStore store, List<Adjustment> leases) {
        try {
            StoreFailures.call("store failed", () -> {
                store.adjust(leases);
                return null;
            });
        } catch (QuotaStoreException e) {
            log.warn("could not give back {} in-flight leases ({}); they come back {} after they were taken",
                    leases.size(), e.getMessage(), leases.get(0).spec().leaseTimeout());
            listener.onStoreFailure(e);
        } catch (RuntimeException e) {
            // a store that throws where it should not: the drain goes on with the next call
            log.error("could not give back {} in-flight leases; they come back {} after they were taken",
                    leases.size(), leases.get(0).spec().leaseTimeout(), e);
        }
    }

    /**
     * Gives back what is still queued, on this thread, once the executor has stopped taking jobs;
     * waits at most {@code max} for the returns queued so far to go out first.
     */
    public void close(Duration max) {
        try {
            await(max);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        // what a job that never ran (an executor that dropped it) left: sent here; a job still
        // running polls other decisions, and each is given back once
        List<Return> rest = new ArrayList<>();
        Return next;
        while ((next = queue.poll()) != null) {
            rest.add(next);
        }
        if (!rest.isEmpty()) {
            send(rest);
        }
    }
}
