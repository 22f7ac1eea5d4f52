package dev.quota.redis.internal.engine;

import dev.quota.core.QuotaStoreException;
import dev.quota.core.spi.RetryBudget;
import dev.quota.core.spi.UnreadableBuckets;
import dev.quota.redis.internal.keystate.ForgottenKeys;
import dev.quota.redis.internal.keystate.KeyStates;
import dev.quota.redis.internal.transport.RedisLink;
import io.github.bucket4j.TimeMeter;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.remote.RemoteBucketState;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The step the {@link Combiner} runs: settles the flights whose reply came, then sends every job
 * whose keys are not in flight, computed in one {@link CasRound}. While one script is on its way
 * the next callers' jobs go out in another. A job on a key in flight goes at once too while this
 * instance holds the key's latest state, computed on what the script before it leaves there
 * ({@link KeysInFlight}: pipelined compare-and-swap), so a hot customer or a shared limit served
 * by one instance costs a decision one round trip, not one plus the wait for the script before.
 * Otherwise (a read or repair on the key, a key other instances write) the job is held and goes,
 * with the others held, once the key's replies are settled.
 *
 * <p>Invariants (the combiner's state, touched only while holding the flag):
 * <ul>
 *   <li>{@code flying} holds, per key, the flights out carrying it and what the last script sent
 *       on it leaves there; a script on a key in flight expects exactly that, so it writes only if
 *       every script before it on the key wrote;
 *   <li>{@code known} is changed by a settled script only for the keys where it is the newest
 *       script settled: a reply that comes late never puts an older state over a newer one;
 *   <li>every job taken from the queue is, until answered, in exactly one of {@code held}, a
 *       flight in {@code flights}, or the batch being launched;
 *   <li>a step never waits: reads before a round and repairs of unreadable keys go out as flights
 *       of their own ({@link ReadFlight}, {@link RepairFlight}), the jobs held behind their keys;
 *   <li>a flight Redis does not answer within the timeout is failed by the next step (Redis's own
 *       timeout normally fires first), so every key in flight is released.
 * </ul>
 * {@code arrivals} is the only state other threads touch: the client's threads add a flight whose
 * reply came and wake a caller to settle it ({@link #wakeSettler}).
 */
public final class Pipeline implements Combiner.Work {

    /** The most jobs one round trip carries. */
    private static final int MAX_BATCH = 256;
    private static final Iterator<CasJob> EMPTY = Collections.emptyIterator();
    /** A step's time before it is read (no clock gives it). */
    private static final long NOT_READ = Long.MIN_VALUE;

    private final RedisLink link;
    private final TimeMeter clock;
    /** Measures how long a flight has been out; System.nanoTime unless a test freezes it. */
    private final LongSupplier wallNanos;
    private final ExpirationAfterWriteStrategy expiry;
    private final long timeoutNanos;
    private final int maxLostRaces;
    private final long trustNanos;
    private final boolean reuseState;
    private final boolean cluster;
    private final KeyStates known;
    /** Flights whose reply came and is not settled yet; added to by the Redis client's threads. */
    private final LinkedQueue<Flight> arrivals = new LinkedQueue<>();
    // the combiner's alone:
    private final List<Flight> flights = new ArrayList<>();
    private final KeysInFlight flying;
    /** Jobs taken from the queue that touch a key in flight, or must be computed again; first in line. */
    private final ArrayDeque<CasJob> held = new ArrayDeque<>();
    /** The first waiter held behind a key in flight, published after each step; woken for a reply no waiter of its own awaits. */
    private volatile @Nullable Thread heldWaiter;
    private volatile int heldCount;
    /** The round every launch computes in, and a step's lists: kept from step to step, cleared by each. */
    private final CasRound round;
    private final List<CasJob> ready = new ArrayList<>();
    private final List<CasJob> toRead = new ArrayList<>();
    private final Set<String> reads = new LinkedHashSet<>();

    Pipeline(RedisLink link, TimeMeter clock, LongSupplier wallNanos, EngineSettings settings, KeyStates known) {
        this.link = link;
        this.clock = clock;
        this.wallNanos = wallNanos;
        this.expiry = settings.expiry();
        this.timeoutNanos = settings.timeoutNanos();
        this.maxLostRaces = settings.maxLostRaces();
        this.trustNanos = settings.trustNanos();
        this.reuseState = settings.reuseWrittenState();
        this.cluster = settings.cluster();
        this.known = known;
        this.flying = new KeysInFlight(reuseState);
        this.round = new CasRound(known, flying, expiry, cluster);
    }

    long timeoutNanos() {
        return timeoutNanos;
    }

    KeyStates known() {
        return known;
    }

    /** How many jobs the last step left held (any thread; for tests that wait for a job to be held). */
    int heldCount() {
        return heldCount;
    }

    @Override
    public void step(Combiner combiner) {
        long wall = wallNanos.getAsLong();
        for (int i = 0; i < flights.size(); i++) {
            Flight flight = flights.get(i);
            if (wall - flight.sentWallNanos > timeoutNanos && !flight.reply().isDone()) {
                flight.reply().completeExceptionally(new TimeoutException()); // Redis's own timeout did not fire
            }
        }
        Flight arrived;
        while ((arrived = arrivals.poll()) != null) {
            settle(arrived);
        }
        known.applyForgets();
        // the round's time, read when the first job is taken: a step that only settles reads no clock
        long now = NOT_READ;
        ready.clear();
        toRead.clear();
        reads.clear();
        for (Iterator<CasJob> it = held.isEmpty() ? EMPTY : held.iterator(); it.hasNext() && ready.size() < MAX_BATCH; ) {
            CasJob job = it.next();
            if (job.abandoned) {
                it.remove();
            } else if (!blocked(job, reads, wall)) {
                it.remove();
                now = now != NOT_READ ? now : clock.currentTimeNanos();
                sort(job, now);
            }
        }
        CasJob next;
        while (ready.size() < MAX_BATCH && (next = combiner.poll()) != null) {
            if (blocked(next, reads, wall)) {
                held.add(next); // waits for the reply that decides its keys, then goes at once
            } else {
                now = now != NOT_READ ? now : clock.currentTimeNanos();
                sort(next, now);
            }
        }
        try {
            if (!toRead.isEmpty()) {
                send(new ReadFlight(new ArrayList<>(reads), new ArrayList<>(toRead), now, cluster));
            }
            if (!ready.isEmpty()) {
                launch(ready, now);
            }
        } finally {
            heldWaiter = firstWaiter(held);
            heldCount = held.size();
        }
    }

    /** Puts {@code job} in the round, among the jobs that read first, or fails it past its retry budget. */
    private void sort(CasJob job, long now) {
        try {
            RetryBudget.check(job.rounds, maxLostRaces, job);
        } catch (QuotaStoreException e) {
            job.fail(e);
            return;
        }
        if (!job.read) {
            boolean missing = (job.rounds == 0 && reuseState) ? readsForgotten(job, now) : readsAll(job, now);
            if (missing) {
                toRead.add(job);
                return;
            }
        }
        ready.add(job);
    }

    /**
     * A job's first round, written states reused: reads nothing, unless a key of it is one this
     * instance forgot while Redis may still hold it (assumed absent, it would fail the whole script
     * and the scripts sent behind it on a key they share). Then every key of it this instance does
     * not remember is read, in the same command: a customer's keys are forgotten together, and the
     * note of one may have been pushed out ({@link ForgottenKeys}). Answers whether it reads.
     */
    private boolean readsForgotten(CasJob job, long now) {
        int count = job.keyCount();
        boolean forgotten = false;
        for (int k = 0; k < count && !forgotten; k++) {
            forgotten = known.mustRead(job.key(k), now);
        }
        if (!forgotten) {
            return false;
        }
        for (int k = 0; k < count; k++) {
            String key = job.key(k);
            if (!known.remembers(key, now) && flying.pipelinedOn(key) == null) {
                reads.add(key);
            }
        }
        return true;
    }

    /**
     * Reads every key of a job's first round when written states are not reused; after a lost race,
     * the keys forgotten since (what the script answered is known). Answers whether it reads.
     */
    private boolean readsAll(CasJob job, long now) {
        boolean missing = false;
        for (int k = 0; k < job.keyCount(); k++) {
            String key = job.key(k);
            if (job.rounds == 0 || known.get(key, now) == null) {
                reads.add(key);
                missing = true;
            }
        }
        return missing;
    }

    /**
     * Whether {@code job} must wait for replies: a refusal waiting for scripts it was computed behind
     * ({@link CasRound#waiting()}), a key of it being read, or in flight and not pipelined.
     */
    private boolean blocked(CasJob job, Set<String> reading, long wall) {
        if (!job.awaiting.isEmpty()) {
            for (Flight flight : job.awaiting) {
                if (!flight.settled) {
                    return true;
                }
            }
            job.awaiting = List.of();
        }
        if (flying.isEmpty() && reading.isEmpty()) {
            return false;
        }
        for (int k = 0; k < job.keyCount(); k++) {
            String key = job.key(k);
            if (reading.contains(key) || flying.blocks(key, wall)) {
                return true;
            }
        }
        return false;
    }

    /** Computes the jobs and sends their scripts; answers at once what needs no round trip. */
    private void launch(List<CasJob> jobs, long now) {
        List<ScriptFlight> scripts;
        try {
            round.start(now);
            scripts = round.compute(jobs, trustNanos);
        } catch (Throwable t) {
            CasJob.failAll(jobs, t);
            rethrowError(t);
            return;
        }
        List<CasJob> waiting = round.waiting(); // each goes once the replies it waits for are settled
        for (int j = 0; j < waiting.size(); j++) {
            held.add(waiting.get(j)); // not addAll: a deque's takes a method reference each time
        }
        Error error = null;
        for (int s = 0; s < scripts.size(); s++) {
            ScriptFlight script = scripts.get(s);
            if (error != null) {
                CasJob.failAll(script, error); // never sent: nobody else would answer them
                continue;
            }
            try {
                send(script);
            } catch (Error e) {
                error = e;
            }
        }
        if (error != null) {
            throw error;
        }
    }

    /**
     * Sends {@code flight} and puts its keys in flight; when sending throws, its jobs fail with
     * it, and an {@link Error} is thrown on after them.
     */
    void send(Flight flight) {
        CompletableFuture<?> reply;
        try {
            reply = flight.send(link);
        } catch (Throwable t) {
            CasJob.failAll(flight, t);
            rethrowError(t);
            return;
        }
        flight.reply = reply;
        flight.sentWallNanos = wallNanos.getAsLong();
        flying.enter(flight);
        flights.add(flight);
        flight.reportsTo = this;
        flight.awaitReply(reply);
    }

    /** Any thread: {@code flight}'s reply came; it waits to be settled by the next step. */
    void arrived(Flight flight) {
        arrivals.add(flight);
        wake(flight);
    }

    /** A reply came: the flight answers, holds or fails its jobs; its keys leave flight. */
    private void settle(Flight flight) {
        flights.remove(flight);
        try {
            flight.settle(this);
        } catch (Throwable t) {
            CasJob.failAll(flight, t);
            rethrowError(t);
        } finally {
            flight.settled = true;
            flying.leave(flight); // after settling: a settled script's keys are still its to judge
        }
        if (flight instanceof ScriptFlight script) {
            round.recycle(script.cells); // read by nobody from now on
        }
    }

    /** The keys in flight: what a settled script may remember of them, and whether jobs on them may go. */
    KeysInFlight flying() {
        return flying;
    }

    /** The flight clock now. */
    long wall() {
        return wallNanos.getAsLong();
    }

    /** Holds {@code flight}'s jobs first in line, in their order, to go in the next step's round. */
    void holdFirst(Flight flight) {
        for (int i = flight.jobCount() - 1; i >= 0; i--) {
            CasJob job = flight.job(i);
            if (!job.done) {
                held.addFirst(job);
            }
        }
    }

    /** The keys of {@code flight}'s jobs changed elsewhere, or were repaired: computed again, first in line. */
    void computeAgain(Flight flight) {
        for (int j = 0; j < flight.jobCount(); j++) {
            CasJob job = flight.job(j);
            job.rounds++;
            job.read = false;
        }
        holdFirst(flight);
    }

    /**
     * Remembers what Redis holds at {@code key}, as confirmed at {@code confirmedNanos}. Bytes
     * that are not a bucket state count as no key, and their deletion goes out as a flight of its
     * own (jobs on the key wait for it), waking a waiter of {@code waiting}'s jobs.
     */
    void remember(String key, byte @Nullable [] bytes, long confirmedNanos, Flight waiting) {
        RemoteBucketState state = UnreadableBuckets.read("redis", key, bytes,
                unreadable -> send(RepairFlight.unreadable(key, unreadable, waiting.jobList())));
        if (state == null || bytes == null) {
            known.confirmAbsent(key, confirmedNanos);
        } else {
            known.confirmBytes(key, bytes, state, confirmedNanos,
                    expiry.calculateTimeToLiveMillis(state, confirmedNanos));
        }
    }

    /** Any thread: wakes a caller to settle the first reply that came. */
    @Override
    public void wakeSettler() {
        Flight arrived = arrivals.peek();
        if (arrived != null) {
            wake(arrived);
        }
    }

    /** Wakes a waiter of {@code flight}'s jobs, or when none waits, the first waiter held behind a key. */
    private void wake(Flight flight) {
        if (!CasJob.wakeOne(flight)) {
            Thread waiter = heldWaiter;
            if (waiter != null) {
                LockSupport.unpark(waiter);
            }
        }
    }

    private static @Nullable Thread firstWaiter(ArrayDeque<CasJob> jobs) {
        if (jobs.isEmpty()) {
            return null; // no iterator for none
        }
        for (CasJob job : jobs) {
            if (job.awaited()) {
                return job.waiter;
            }
        }
        return null;
    }

    private static void rethrowError(Throwable t) {
        if (t instanceof Error e) {
            throw e;
        }
    }
}
