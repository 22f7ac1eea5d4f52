package dev.quota.redis.internal.engine;

import dev.quota.core.QuotaStoreException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * Flat combining: callers queue {@link CasJob}s and wait; whichever finds the flag free takes one
 * {@linkplain Work#step step} for every caller, then lets go. The step never waits (it sends and
 * settles replies that already came), so the flag is held for computation only.
 *
 * <p><b>Liveness.</b> A waiting caller is woken when its job is answered ({@link CasJob#complete},
 * {@link CasJob#fail}); and work no step has looked at always has a caller that will look:
 * <ul>
 *   <li>a job queued while the flag is held: its own caller tries the flag after queueing it; the
 *       holder, after letting go, looks at the queue and wakes the first waiter there (released
 *       first, then looked: a job queued meanwhile is seen here, or its caller finds the flag free);
 *   <li>a reply: its arrival wakes a waiter of its jobs, or, when none waits any more, the first
 *       waiter held behind its keys ({@link Work#wakeSettler}); the holder, after letting go, does the
 *       same for a reply that came while it stepped;
 *   <li>an interrupted caller abandons its job and passes on a wake-up it may have taken.
 * </ul>
 * A parked caller also looks again after {@link #PARK_NANOS}: needed only for a script Redis never
 * answers, which the next step times out ({@link Pipeline}).
 *
 * <p>Interrupts: a waiting caller that is interrupted stops waiting, abandons its job and throws a
 * {@link QuotaStoreException}, its interrupt status kept; nothing else is failed. A caller
 * interrupted while it steps finishes the step (which does not wait) for everyone.
 */
public final class Combiner {

    /** What one step does; run by one caller at a time, holding the flag. */
    interface Work {
        /** Settles the replies that came, computes and sends what can go. Never waits. */
        void step(Combiner combiner);

        /** Any thread, flag not held: wakes a caller for replies that came and are not settled. */
        void wakeSettler();
    }

    /**
     * How long a waiting caller sleeps before it looks again, should a wake-up never come. Long
     * enough that waiting callers do not wake more often than decisions are made: a short timeout
     * spends the CPU on wake-ups (the CPU per decision of quota-bench's many-callers scenarios
     * shows it).
     */
    static final long PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private final LinkedQueue<CasJob> queue = new LinkedQueue<>();
    private final AtomicBoolean combining = new AtomicBoolean();
    private final Work work;

    Combiner(Work work) {
        this.work = work;
    }

    /** Queues {@code job}, a job never queued before; its caller then {@linkplain #await awaits} it. */
    void submit(CasJob job) {
        queue.add(job);
    }

    /** The next queued job a waiter still waits for; the step's only (holding the flag). */
    @Nullable CasJob poll() {
        CasJob job;
        while ((job = queue.poll()) != null && job.abandoned) {
            // its caller left before any step took it: nothing to do
        }
        return job;
    }

    /**
     * Waits for {@code job}, stepping for everyone whenever the flag is free; answers its outcome
     * ({@link CasJob#outcome}: its failure thrown).
     */
    Object await(CasJob job) {
        while (!job.done) {
            if (combining.compareAndSet(false, true)) {
                try {
                    work.step(this);
                } finally {
                    combining.set(false);
                    wakeForWaitingWork(); // released first, then looked (also when the step threw)
                }
                if (job.done) {
                    break;
                }
            }
            if (Thread.interrupted()) {
                job.abandon();
                wakeForWaitingWork(); // a wake-up this thread took may have been meant for work still waiting
                Thread.currentThread().interrupt();
                throw new QuotaStoreException("interrupted while waiting for redis");
            }
            LockSupport.parkNanos(job, PARK_NANOS);
        }
        return job.outcome();
    }

    /** Wakes a caller for each kind of work left: a reply to settle, a job to send. */
    private void wakeForWaitingWork() {
        work.wakeSettler();
        CasJob next = queue.first(CasJob::awaited);
        if (next != null) {
            LockSupport.unpark(next.waiter);
        }
    }
}
