package dev.quota.redis.internal.engine;

import dev.quota.core.spi.StoreFailures;
import dev.quota.core.spi.Take;
import io.github.bucket4j.distributed.remote.RemoteBucketState;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Work a caller hands to the {@link CasEngine}: computed by whichever caller combines, answered to
 * its own thread.
 *
 * <p>A job moves through these states; every field but {@link #done} and {@link #abandoned} is
 * the combiner's alone (whoever holds {@link Combiner}'s flag), handed from one combiner to the
 * next by the flag's release and acquisition:
 * <pre>
 *   QUEUED ──taken by a step──▶ HELD ◀──────────────── lost a race / read / repaired ─┐
 *     │                          │ (keys in flight, or a read it waits for)          │
 *     │                          ▼                                                   │
 *     └──────────────────────▶ COMPUTED ──refusal on confirmed states──▶ DONE        │
 *                                │                                                   │
 *                                └──sent in a script──▶ FLYING ──reply settled──▶ DONE or back ┘
 * </pre>
 * A job is DONE when {@link #complete} or {@link #fail} ran, once; its waiter is unparked then. A
 * waiter that is interrupted {@linkplain #abandon abandons} its job: a step drops an abandoned job
 * it has not sent; one already flying is settled as any other, and its answer goes unread.
 */
public abstract class CasJob extends LinkedQueue.Linked<CasJob> implements Supplier<String> {

    final Thread waiter = Thread.currentThread();
    volatile boolean done;
    /** Set by the waiter when it stops waiting (interrupted); the job is then nobody's to answer. */
    volatile boolean abandoned;
    /** Round trips that came back with keys changed elsewhere (the combiner's alone). */
    int rounds;
    /**
     * The scripts of this instance whose replies a refusal computed on their pipelined writes waits
     * for, to be computed again on what they confirm (the combiner's alone).
     */
    List<Flight> awaiting = List.of();
    /** How many times it waited so: at most {@link CasRound#MAX_WAITS}, so a busy key never starves it. */
    int waits;
    /** Whether the keys it must read before it is computed have been read this round (the combiner's alone). */
    boolean read;
    /**
     * The computed answer, computed again until the job is done; once done, what the waiter
     * reads (a done job is never computed again).
     */
    private @Nullable Object provisional;
    private @Nullable RuntimeException failure;

    /** The keys the job reads and may write; the first routes it in a cluster. */
    abstract List<String> keys();

    /** How many keys {@link #keys} has: the hot loops read them by index, without the list. */
    int keyCount() {
        return keys().size();
    }

    /** The {@code i}th of {@link #keys}. */
    String key(int i) {
        return keys().get(i);
    }

    /**
     * Whether the computed answer, if it wrote nothing, is a refusal that may stand on states
     * Redis confirmed within the trust window: consumption by other instances only lowers
     * tokens, so it would refuse too. Anything else (a read, a bucket not found) must be
     * confirmed by Redis.
     */
    boolean refusal() {
        return false;
    }

    /**
     * Names the job for a failure message, {@code redis keys [k1, k2]}: the job itself is what a
     * retry budget's check ({@link dev.quota.core.spi.RetryBudget#check(int, int, Supplier)}) builds
     * its message from, only when it fails, with nothing allocated for the checks that pass.
     */
    @Override
    public final String get() {
        return "redis keys " + keys();
    }

    /**
     * The take of this job, computed and admitted, on {@code key}, when its tokens are all it changes there: what
     * the script may take from another state than assumed, when the job is its script's only one
     * ({@link dev.quota.redis.internal.encoding.StoredTake}); null when its change to the key is not
     * a plain take (anything but a consume), or it refused.
     */
    @Nullable Take plainTake(String key) {
        return null;
    }

    /**
     * The script took this job's tokens from {@code written}'s state less them, not from the
     * state the job was computed on: the answer is made over from what the key holds.
     */
    void tookFrom(String key, RemoteBucketState written, long nowNanos) {
        throw new IllegalStateException("only a plain take is taken from another state");
    }

    /** The answer computed last, or null before the first compute. */
    final @Nullable Object computed() {
        return provisional;
    }

    /** Computes on the round's cells; the answer holds only if the round's script writes. */
    abstract void compute(CasRound round);

    /** Records the computed answer, given to the waiter when the script that carries it wrote. */
    final void answer(Object value) {
        provisional = value;
    }

    final void complete() {
        done = true;
        LockSupport.unpark(waiter);
    }

    final void fail(RuntimeException e) {
        failure = e;
        done = true;
        LockSupport.unpark(waiter);
    }

    /** Whether a waiter still waits for this job: the one to wake when there is work for it. */
    final boolean awaited() {
        return !done && !abandoned;
    }

    /** The waiter gives up (interrupted); the job's answer, if one comes, goes unread. */
    final void abandon() {
        abandoned = true;
    }

    /** What the job answered, once done; its failure thrown. Typed by the job that answers it. */
    final Object outcome() {
        RuntimeException failed = failure;
        if (failed != null) {
            throw failed;
        }
        // every job's compute answers before the job can complete
        return Objects.requireNonNull(provisional, "a job completes only once computed");
    }

    /** Answers every job of {@code jobs} not answered yet with {@code t}, as a store failure. */
    static void failAll(List<? extends CasJob> jobs, Throwable t) {
        RuntimeException failure = StoreFailures.wrap("redis could not decide", t);
        for (CasJob job : jobs) {
            if (!job.done) {
                job.fail(failure);
            }
        }
    }

    /** Answers every job of {@code flight} not answered yet with {@code t}, as a store failure. */
    static void failAll(Flight flight, Throwable t) {
        RuntimeException failure = StoreFailures.wrap("redis could not decide", t);
        for (int j = 0; j < flight.jobCount(); j++) {
            CasJob job = flight.job(j);
            if (!job.done) {
                job.fail(failure);
            }
        }
    }

    /** Wakes the first waiter of {@code flight}'s jobs that still waits; false when none does (any thread). */
    static boolean wakeOne(Flight flight) {
        for (int j = 0; j < flight.jobCount(); j++) {
            CasJob job = flight.job(j);
            if (job.awaited()) {
                LockSupport.unpark(job.waiter);
                return true;
            }
        }
        return false;
    }
}
