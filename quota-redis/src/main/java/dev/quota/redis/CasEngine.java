package dev.quota.redis;

import dev.quota.core.QuotaStoreException;
import dev.quota.core.internal.BucketMath;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.Take;
import io.github.bucket4j.TimeMeter;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.remote.CommandResult;
import io.github.bucket4j.distributed.remote.MutableBucketEntry;
import io.github.bucket4j.distributed.remote.RemoteBucketState;
import io.github.bucket4j.distributed.remote.RemoteCommand;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;
import org.redisson.client.codec.ByteArrayCodec;
import org.redisson.client.protocol.RedisCommands;
import org.redisson.command.CommandAsyncExecutor;

/**
 * Bucket4j's compare-and-swap over Redis, for whole decisions and many callers at once.
 *
 * <p>Callers hand in jobs (a consume of several buckets, a refund, a Bucket4j command). One caller
 * at a time combines every job waiting: it computes them in order on the states this instance last
 * wrote or saw ({@link KeyState}), then sends one script per Redis Cluster slot (one in all for a
 * standalone or Sentinel Redis) that checks every key still holds what was assumed and writes the
 * new states with their TTLs. When a key differs (another instance wrote it), the script writes
 * nothing and answers what the keys hold, and the jobs are computed again from that, in the next
 * round trip. So a decision over five buckets costs one round trip, a hot customer's concurrent
 * requests share one, and a key nobody else writes is never read before it is written.
 *
 * <p>Scripts are pipelined: the combiner never waits for a reply while holding the combining
 * flag, so while one script is on its way the next callers' jobs go out in another, as long as
 * they touch none of its keys (those wait for its reply and then go, together, at once). A reply
 * is settled by whichever caller next holds the flag.
 *
 * <p>A refusal computed from states Redis confirmed within {@code trustNanos} needs no round trip:
 * consumption elsewhere only lowers tokens, so the refusal stands (a refund or reset on another
 * instance is seen within that time).
 */
final class CasEngine {

    /** The most jobs one round trip carries. */
    private static final int MAX_BATCH = 256;
    /**
     * How long a waiting caller sleeps before it looks again, should a wake-up never come. Every
     * release of the combiner wakes the first waiter, and every answered job wakes its own, so this
     * is a safety net only: a short timeout (200 µs) made 64 waiting callers wake 320,000 times a
     * second, which cost more CPU than the decisions (quota-bench: 214 µs per decision, 20 µs with 10 ms).
     */
    private static final long PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    /** A remembered state is forgotten this long before Redis expires its key. */
    private static final long EXPIRY_MARGIN_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** How long "there is no key" is remembered. */
    private static final long ABSENT_REMEMBERED_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final CommandAsyncExecutor redis;
    private final TimeMeter clock;
    private final ExpirationAfterWriteStrategy expiry;
    private final long timeoutNanos;
    /** The most compare-and-swap races a job may lose. */
    private final int maxLostRaces;
    private final long trustNanos;
    private final boolean reuseState;
    private final boolean cluster;
    private final KeyStates known;
    private final BucketRepair repair;
    private final ConcurrentLinkedQueue<Job> queue = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean combining = new AtomicBoolean();
    /** Scripts whose reply came and is not settled yet; added to by the Redis client's threads. */
    private final ConcurrentLinkedQueue<Group> arrivals = new ConcurrentLinkedQueue<>();
    // the combiner's alone (whoever holds the flag):
    /** Scripts sent and not settled. */
    private final List<Group> flights = new ArrayList<>();
    /** The keys of those scripts, with how many carry each. */
    private final Map<String, Integer> flying = new HashMap<>();
    /** Jobs taken from the queue that touch a key in flight, or must be computed again; first in line. */
    private final ArrayDeque<Job> held = new ArrayDeque<>();

    CasEngine(CommandAsyncExecutor redis, TimeMeter clock, ExpirationAfterWriteStrategy expiry, long timeoutNanos,
              int maxLostRaces, long trustNanos, boolean reuseState, boolean cluster, int maxKnownKeys,
              BucketRepair repair) {
        this.redis = redis;
        this.clock = clock;
        this.expiry = expiry;
        this.timeoutNanos = timeoutNanos;
        this.maxLostRaces = maxLostRaces;
        this.trustNanos = trustNanos;
        this.reuseState = reuseState;
        this.cluster = cluster;
        this.repair = repair;
        this.known = new KeyStates(maxKnownKeys);
    }

    /** Takes tokens for one decision (the semantics of {@link dev.quota.core.spi.QuotaStore#tryConsume(List)}). */
    List<ConsumeResult> consume(List<Take> takes) {
        return run(new ConsumeJob(takes));
    }

    /** Several consumes at once, in one round trip when they can share one (one per slot in a cluster). */
    List<List<ConsumeResult>> consumeAll(List<List<Take>> consumes) {
        List<Job> jobs = new ArrayList<>(consumes.size());
        for (List<Take> takes : consumes) {
            jobs.add(new ConsumeJob(takes));
        }
        queue.addAll(jobs);
        List<List<ConsumeResult>> out = new ArrayList<>(jobs.size());
        for (Job job : jobs) {
            out.add(await(job));
        }
        return out;
    }

    /** Gives tokens back to one bucket. */
    void addTokens(BucketKey key, BucketSpec spec, long tokens) {
        run(new AddJob(key.value(), spec, tokens));
    }

    /**
     * Runs one Bucket4j command on one key, writing the state if the command changed it, as a Bucket4j
     * proxy manager would: with the TTL of {@code ttl}, and none when {@code ttl} is null (a manager
     * without an expiration strategy keeps its buckets for ever).
     */
    <T> CommandResult<T> execute(String key, RemoteCommand<T> command, @Nullable ExpirationAfterWriteStrategy ttl,
                                 @Nullable Long clientTimeNanos) {
        return run(new CommandJob<>(key, command, ttl != null ? ttl : ExpirationAfterWriteStrategy.none(),
                clientTimeNanos));
    }

    /** The bucket as Redis holds it now, read fresh; a key that holds no bucket counts as none (and is deleted). */
    @Nullable RemoteBucketState read(String key) {
        byte[] bytes;
        try {
            bytes = await(redis.readAsync(key, ByteArrayCodec.INSTANCE, RedisCommands.GET, key), key);
        } catch (QuotaStoreException e) {
            if (!repair.removedCorrupt(List.of(key), e)) {
                throw e;
            }
            bytes = null;
        }
        return bytes == null ? null : parse(key, bytes);
    }

    /** Deletes a key; this instance forgets what it knew of it. */
    void delete(String key) {
        known.forgetLater(key);
        Object ignored = await(redis.writeAsync(key, ByteArrayCodec.INSTANCE, RedisCommands.DEL, key), key);
        known.forgetLater(key); // a round that ran meanwhile may have remembered what the key held before
    }

    /** Forgets everything remembered. */
    void forgetAll() {
        known.forgetAllLater();
    }

    long now() {
        return clock.currentTimeNanos();
    }

    // ---------------------------------------------------------------- combining

    private <T> T run(Job job) {
        queue.add(job);
        return await(job);
    }

    /**
     * Waits for {@code job}. Whoever finds no one else combining takes a step: settles the round
     * trips that came back, then computes and sends every waiting job whose keys are not in flight.
     * A step never waits for Redis, so while one script is on its way the next caller's jobs on
     * other keys go out in a script of their own: the instance pipelines, and a decision does not
     * wait for an unrelated one's round trip before its own.
     */
    private <T> T await(Job job) {
        while (!job.done) {
            if (combining.compareAndSet(false, true)) {
                try {
                    step();
                } finally {
                    combining.set(false);
                }
                // released first, then looked: work that came meanwhile finds the flag free or is seen here
                wakeForWaitingWork();
                if (job.done) {
                    break;
                }
            }
            LockSupport.parkNanos(job, PARK_NANOS); // woken when answered, when its reply came, or handed over
        }
        return job.outcome();
    }

    /** Wakes a caller for each kind of work left: a reply to settle, a job to send. */
    private void wakeForWaitingWork() {
        Group arrived = arrivals.peek();
        if (arrived != null) {
            arrived.wakeSettler();
        }
        Job next = queue.peek();
        if (next != null) {
            LockSupport.unpark(next.waiter);
        }
    }

    /** One step of the combiner (holding the flag): settle what came back, send what can go. */
    private void step() {
        long wall = System.nanoTime();
        for (Group flight : flights) {
            if (wall - flight.sentWallNanos > timeoutNanos && flight.reply != null && !flight.reply.isDone()) {
                flight.reply.completeExceptionally(new TimeoutException()); // Redis's own timeout did not fire
            }
        }
        Group arrived;
        while ((arrived = arrivals.poll()) != null) {
            settleFlight(arrived);
        }
        List<Job> ready = new ArrayList<>();
        for (Iterator<Job> it = held.iterator(); it.hasNext() && ready.size() < MAX_BATCH; ) {
            Job job = it.next();
            if (!inFlight(job)) {
                ready.add(job);
                it.remove();
            }
        }
        Job next;
        while (ready.size() < MAX_BATCH && (next = queue.poll()) != null) {
            if (inFlight(next)) {
                held.add(next); // waits for the reply that decides its keys, then goes at once
            } else {
                ready.add(next);
            }
        }
        if (!ready.isEmpty()) {
            launch(ready);
        }
    }

    private boolean inFlight(Job job) {
        if (flying.isEmpty()) {
            return false;
        }
        for (String key : job.keys()) {
            if (flying.containsKey(key)) {
                return true;
            }
        }
        return false;
    }

    /** Computes the jobs and sends their scripts; answers at once what needs no round trip. */
    private void launch(List<Job> jobs) {
        List<Job> pending = new ArrayList<>(jobs.size());
        for (Job job : jobs) {
            if (job.rounds > maxLostRaces) {
                job.fail(new QuotaStoreException("redis compare-and-swap lost " + job.rounds + " races, past the"
                        + " retry budget of " + maxLostRaces + " lost races: keys written elsewhere all the time"));
            } else {
                pending.add(job);
            }
        }
        if (pending.isEmpty()) {
            return;
        }
        List<Group> groups;
        try {
            if (!reuseState) {
                prefetch(pending.stream().filter(job -> job.rounds == 0).toList(), true); // a fresh read first
            }
            prefetch(pending.stream().filter(job -> job.rounds > 0).toList(), false); // keys forgotten after an error
            groups = round(pending);
        } catch (Throwable t) {
            failAll(pending, t);
            rethrowError(t);
            return;
        }
        Error error = null;
        for (Group group : groups) {
            if (error != null) {
                failAll(group.jobs, error); // never sent: nobody else would answer them
                continue;
            }
            try {
                group.send(this);
            } catch (Throwable t) {
                failAll(group.jobs, t);
                error = t instanceof Error e ? e : null;
                continue;
            }
            group.sentWallNanos = System.nanoTime();
            for (Cell cell : group.cells) {
                flying.merge(cell.key, 1, Integer::sum);
            }
            flights.add(group);
            group.reply.whenComplete((answer, failure) -> {
                arrivals.add(group);
                group.wakeSettler();
            });
        }
        if (error != null) {
            throw error;
        }
    }

    /** Answers every job not answered yet with {@code t}, as a store failure. */
    private static void failAll(List<Job> jobs, Throwable t) {
        RuntimeException failure = t instanceof QuotaStoreException q ? q
                : new QuotaStoreException("redis could not decide: " + t, t);
        for (Job job : jobs) {
            if (!job.done) {
                job.fail(failure);
            }
        }
    }

    private static void rethrowError(Throwable t) {
        if (t instanceof Error e) {
            throw e;
        }
    }

    /** A reply came: answers its jobs, or holds them to compute again on what Redis holds. */
    private void settleFlight(Group flight) {
        flights.remove(flight);
        for (Cell cell : flight.cells) {
            flying.computeIfPresent(cell.key, (key, count) -> count == 1 ? null : count - 1);
        }
        boolean written;
        try {
            written = flight.settle(this);
        } catch (Throwable t) {
            failAll(flight.jobs, t);
            rethrowError(t);
            return;
        }
        if (!written) {
            for (int i = flight.jobs.size() - 1; i >= 0; i--) { // first in line, in their order
                Job job = flight.jobs.get(i);
                job.rounds++;
                held.addFirst(job);
            }
        }
    }

    // ---------------------------------------------------------------- one round

    /**
     * Computes every pending job on what is known, answers the refusals that stand on confirmed
     * states, and returns the scripts to send (one per Redis Cluster slot, one in all otherwise).
     */
    private List<Group> round(List<Job> pending) {
        known.applyForgets();
        long now = clock.currentTimeNanos();
        Map<String, Cell> cells = new LinkedHashMap<>();
        for (Job job : pending) {
            job.compute(this, cells, now);
        }
        // refusals that stand on confirmed states are answered now, even when others' jobs go to
        // Redis: riding along would only add their keys to the script (a flooding customer's to
        // every script while it floods)
        List<Job> toSend = new ArrayList<>(pending.size());
        Set<String> used = new HashSet<>();
        for (Job job : pending) {
            if (standsOnConfirmedStates(job, cells, now)) {
                job.complete();
            } else {
                toSend.add(job);
                used.addAll(job.keys());
            }
        }
        if (toSend.isEmpty()) {
            return List.of();
        }
        // which slot each key and job belongs to (one group unless Redis Cluster)
        Map<Integer, Group> groups = new LinkedHashMap<>();
        for (Cell cell : cells.values()) {
            if (used.contains(cell.key)) { // a written cell always is: the job that wrote it is sent
                groups.computeIfAbsent(cluster ? KeySlots.slot(cell.key) : 0, s -> new Group(now)).cells.add(cell);
            }
        }
        for (Job job : toSend) {
            groups.get(cluster ? KeySlots.slot(job.firstKey()) : 0).jobs.add(job);
        }
        // every job left needs Redis: a refusal among them touches a key written this round or not confirmed lately
        return new ArrayList<>(groups.values());
    }

    /**
     * Whether {@code job}'s answer is a refusal that stands without Redis: every key it touches was
     * confirmed within the trust window and nothing in this round wrote it (neither the job itself,
     * whose answer would then be a take, nor a job computed before or after it).
     */
    private boolean standsOnConfirmedStates(Job job, Map<String, Cell> cells, long now) {
        if (trustNanos == 0 || !job.refusal()) {
            return false;
        }
        for (String key : job.keys()) {
            Cell cell = cells.get(key);
            if (cell == null || cell.dirty || !cell.knownBefore || now - cell.confirmedNanos >= trustNanos) {
                return false;
            }
        }
        return true;
    }

    /** Reads the keys the jobs touch: all of them, or those this instance knows nothing of. */
    private void prefetch(List<Job> jobs, boolean all) {
        if (jobs.isEmpty()) {
            return;
        }
        known.applyForgets();
        long start = clock.currentTimeNanos();
        Map<String, CompletableFuture<byte[]>> reads = new HashMap<>();
        for (Job job : jobs) {
            for (String key : job.keys()) {
                if (!reads.containsKey(key) && (all || known.get(key, start) == null)) {
                    org.redisson.api.RFuture<byte[]> read = redis.readAsync(key, ByteArrayCodec.INSTANCE,
                            RedisCommands.GET, key);
                    reads.put(key, read.toCompletableFuture());
                }
            }
        }
        if (reads.isEmpty()) {
            return;
        }
        long now = clock.currentTimeNanos();
        for (Map.Entry<String, CompletableFuture<byte[]>> read : reads.entrySet()) {
            byte[] bytes = awaitFuture(read.getValue(), read.getKey());
            remember(read.getKey(), bytes, now);
        }
    }

    /** The cell of {@code key} for this round: from what is known, else assumed absent. */
    Cell cell(Map<String, Cell> cells, String key, long nowNanos) {
        Cell cell = cells.get(key);
        if (cell == null) {
            KeyState state = known.get(key, nowNanos);
            cell = state == null ? new Cell(key, null, null, false, Long.MIN_VALUE)
                    : new Cell(key, state.bytes(), state.state(), true, state.confirmedNanos());
            cells.put(key, cell);
        }
        return cell;
    }

    private void remember(String key, byte @Nullable [] bytes, long confirmedNanos) {
        RemoteBucketState state = bytes == null ? null : parse(key, bytes);
        known.put(key, knownState(state == null ? null : bytes, state, confirmedNanos,
                state == null ? 0 : expiry.calculateTimeToLiveMillis(state, confirmedNanos)), confirmedNanos);
    }

    /** What is remembered of a key Redis confirmed at {@code nowNanos}, kept as long as its TTL allows. */
    private static KeyState knownState(byte @Nullable [] bytes, @Nullable RemoteBucketState state, long nowNanos,
                                       long ttlMillis) {
        long life = bytes == null ? ABSENT_REMEMBERED_NANOS
                : ttlMillis > 0 ? Math.max(0, TimeUnit.MILLISECONDS.toNanos(ttlMillis) - EXPIRY_MARGIN_NANOS)
                : Long.MAX_VALUE / 4;
        return new KeyState(bytes, state, nowNanos, nowNanos + life);
    }

    /** The state of stored bytes; bytes that are not a bucket are deleted (if unchanged) and count as no key. */
    private @Nullable RemoteBucketState parse(String key, byte[] bytes) {
        try {
            return BucketMath.deserialize(bytes);
        } catch (RuntimeException e) {
            repair.deleteCorrupt(new BucketKey(key), bytes, e);
            return null;
        }
    }

    private <T> T await(org.redisson.api.RFuture<T> future, String key) {
        return awaitFuture(future.toCompletableFuture(), key);
    }

    private <T> T awaitFuture(CompletableFuture<T> future, String key) {
        try {
            return future.get(timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            future.cancel(true);
            Thread.currentThread().interrupt();
            throw new QuotaStoreException("interrupted while waiting for redis (" + key + ")", e);
        } catch (TimeoutException e) {
            future.cancel(false);
            throw new QuotaStoreException("redis did not answer within " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos)
                    + " ms (" + key + ")", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof TimeoutException) { // a script's reply given up on by a step
                throw new QuotaStoreException("redis did not answer within "
                        + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms (" + key + ")", e.getCause());
            }
            throw new QuotaStoreException("redis failed (" + key + "): " + e.getCause(), e.getCause());
        }
    }

    // ---------------------------------------------------------------- per key, per slot

    /** One key in one round: what Redis is assumed to hold, and the state the jobs have computed so far. */
    static final class Cell {
        final String key;
        final byte @Nullable [] expected;
        @Nullable RemoteBucketState state;
        final boolean knownBefore;
        final long confirmedNanos;
        boolean dirty;
        /** The expiration of the last job that wrote the cell this round. */
        @Nullable ExpirationAfterWriteStrategy ttl;

        Cell(String key, byte @Nullable [] expected, @Nullable RemoteBucketState state, boolean knownBefore,
             long confirmedNanos) {
            this.key = key;
            this.expected = expected;
            this.state = state;
            this.knownBefore = knownBefore;
            this.confirmedNanos = confirmedNanos;
        }

        void write(RemoteBucketState after, ExpirationAfterWriteStrategy strategy) {
            state = after;
            dirty = true;
            ttl = strategy;
        }
    }

    /** The keys of one slot in one round, the jobs on them, and the script that checks and writes them. */
    private static final class Group {
        final List<Cell> cells = new ArrayList<>();
        final List<Job> jobs = new ArrayList<>();
        /** The round's time, by the store's clock: when what the script confirms was true. */
        final long now;
        @Nullable CompletableFuture<List<Object>> reply;
        byte @Nullable [][] written;
        long[] ttls = new long[0];
        long sentWallNanos;

        Group(long now) {
            this.now = now;
        }

        /** Wakes one caller waiting for this script, to settle it for all (each is woken when answered). */
        void wakeSettler() {
            if (!jobs.isEmpty()) {
                LockSupport.unpark(jobs.get(0).waiter);
            }
        }

        void send(CasEngine engine) {
            int n = cells.size();
            List<Object> keys = new ArrayList<>(n);
            byte[][] expected = new byte[n][];
            ttls = new long[n];
            written = new byte[n][];
            for (int i = 0; i < n; i++) {
                Cell cell = cells.get(i);
                keys.add(cell.key);
                expected[i] = cell.expected;
                if (cell.dirty && cell.state != null) {
                    written[i] = BucketMath.serialize(cell.state);
                    ExpirationAfterWriteStrategy strategy = cell.ttl != null ? cell.ttl : engine.expiry;
                    // a strategy's 0 or less means no expiry; the script takes 0 for that
                    ttls[i] = Math.max(0, strategy.calculateTimeToLiveMillis(cell.state, now));
                }
            }
            org.redisson.api.RFuture<List<Object>> sent = engine.redis.evalWriteAsync(cells.get(0).key,
                    ByteArrayCodec.INSTANCE, RedisCommands.EVAL_LIST, CasScript.TEXT, keys,
                    CasScript.arguments(n, expected, written, ttls));
            reply = sent.toCompletableFuture();
        }

        /** Whether the script writes a key (else it only checks what keys hold). */
        private boolean writes() {
            byte[][] sent = written;
            if (sent == null) {
                return false;
            }
            for (byte[] bytes : sent) {
                if (bytes != null) {
                    return true;
                }
            }
            return false;
        }

        /** True when the script wrote (the jobs are answered); false when keys differed (compute again). */
        boolean settle(CasEngine engine) {
            List<Object> answer;
            try {
                answer = engine.awaitFuture(reply, cells.get(0).key);
            } catch (QuotaStoreException e) {
                // the script may or may not have run: what this instance knew of these keys is void,
                // and the next decision on them reads them afresh
                cells.forEach(cell -> engine.known.remove(cell.key));
                if (engine.repair.removedCorrupt(cells.stream().map(cell -> cell.key).toList(), e)) {
                    return false; // a key held something else than a bucket: gone now, compute again
                }
                // its decisions are refused: were the script applied after all, its tokens stay taken
                // (a refused request paid for), never given to a second decision
                QuotaStoreException doubt = writes() ? QuotaStoreException.inDoubt(
                        "write in doubt: " + e.getMessage(), e.getCause() != null ? e.getCause() : e) : e;
                jobs.forEach(job -> job.fail(doubt));
                return true;
            }
            List<CasScript.Difference> differences = CasScript.differences(answer);
            if (differences.isEmpty()) {
                for (int i = 0; i < cells.size(); i++) {
                    Cell cell = cells.get(i);
                    byte[] holds = written[i] != null ? written[i] : cell.expected;
                    engine.known.put(cell.key, knownState(holds, holds == null ? null : cell.state, now,
                            ttls[i] > 0 || holds == null ? ttls[i]
                                    : engine.expiry.calculateTimeToLiveMillis(cell.state, now)), now);
                }
                jobs.forEach(Job::complete);
                return true;
            }
            for (CasScript.Difference difference : differences) {
                engine.remember(cells.get(difference.index()).key, difference.holds(), now);
            }
            return false;
        }
    }

    // ---------------------------------------------------------------- jobs

    /** Work a caller hands in; computed by whichever caller combines, answered to its own thread. */
    abstract static class Job {
        final Thread waiter = Thread.currentThread();
        volatile boolean done;
        /** Round trips that came back with keys changed elsewhere (the combiner's alone). */
        int rounds;
        private @Nullable Object provisional;
        private @Nullable Object result;
        private @Nullable RuntimeException failure;

        abstract List<String> keys();

        /**
         * Whether the computed answer, if it wrote nothing, is a refusal that may stand on states
         * Redis confirmed within the trust window: consumption by other instances only lowers
         * tokens, so it would refuse too. Anything else (a read, a bucket not found) must be
         * confirmed by Redis.
         */
        boolean refusal() {
            return false;
        }

        String firstKey() {
            return keys().get(0);
        }

        /** Computes on the round's cells; the answer holds only if the round's script writes. */
        abstract void compute(CasEngine engine, Map<String, Cell> cells, long nowNanos);

        void answer(Object value) {
            provisional = value;
        }

        void complete() {
            result = provisional;
            done = true;
            LockSupport.unpark(waiter);
        }

        void fail(RuntimeException e) {
            failure = e;
            done = true;
            LockSupport.unpark(waiter);
        }

        @SuppressWarnings("unchecked")
        <T> T outcome() {
            if (failure != null) {
                throw failure;
            }
            return (T) result;
        }
    }

    private static final class ConsumeJob extends Job {
        private final List<Take> takes;
        private final List<String> keys;

        ConsumeJob(List<Take> takes) {
            this.takes = takes;
            this.keys = new ArrayList<>(takes.size());
            for (Take take : takes) {
                keys.add(take.key().value());
            }
        }

        @Override
        List<String> keys() {
            return keys;
        }

        /** A consume that wrote nothing took nothing: a refusal. */
        @Override
        boolean refusal() {
            return true;
        }

        @Override
        void compute(CasEngine engine, Map<String, Cell> cells, long nowNanos) {
            Cell[] mine = new Cell[takes.size()];
            RemoteBucketState[] before = new RemoteBucketState[takes.size()];
            for (int i = 0; i < mine.length; i++) {
                mine[i] = engine.cell(cells, keys.get(i), nowNanos);
                before[i] = mine[i].state;
            }
            BucketMath.Outcome outcome = BucketMath.decide(takes, before, nowNanos);
            for (int i = 0; i < mine.length; i++) {
                RemoteBucketState after = outcome.writes()[i];
                if (after != null) {
                    mine[i].write(after, engine.expiry);
                }
            }
            answer(outcome.results());
        }
    }

    /** A job on one key. */
    private abstract static class SingleKeyJob extends Job {
        final String key;
        private final List<String> keys;

        SingleKeyJob(String key) {
            this.key = key;
            this.keys = List.of(key);
        }

        @Override
        List<String> keys() {
            return keys;
        }
    }

    private static final class AddJob extends SingleKeyJob {
        private final BucketSpec spec;
        private final long tokens;

        AddJob(String key, BucketSpec spec, long tokens) {
            super(key);
            this.spec = spec;
            this.tokens = tokens;
        }

        @Override
        void compute(CasEngine engine, Map<String, Cell> cells, long nowNanos) {
            Cell cell = engine.cell(cells, key, nowNanos);
            cell.write(BucketMath.addTokens(cell.state, spec, tokens, nowNanos), engine.expiry);
            answer(Boolean.TRUE);
        }
    }

    private static final class CommandJob<T> extends SingleKeyJob {
        private final RemoteCommand<T> command;
        private final ExpirationAfterWriteStrategy ttl;
        private final @Nullable Long clientTimeNanos;

        CommandJob(String key, RemoteCommand<T> command, ExpirationAfterWriteStrategy ttl,
                   @Nullable Long clientTimeNanos) {
            super(key);
            this.command = command;
            this.ttl = ttl;
            this.clientTimeNanos = clientTimeNanos;
        }

        @Override
        void compute(CasEngine engine, Map<String, Cell> cells, long nowNanos) {
            Cell cell = engine.cell(cells, key, nowNanos);
            MutableBucketEntry entry = cell.state == null ? new MutableBucketEntry((byte[]) null)
                    : new MutableBucketEntry(cell.state.copy());
            CommandResult<T> result = command.execute(entry, clientTimeNanos != null ? clientTimeNanos : nowNanos);
            if (entry.isStateModified()) {
                cell.write(entry.get(), ttl);
            }
            answer(result);
        }
    }
}
