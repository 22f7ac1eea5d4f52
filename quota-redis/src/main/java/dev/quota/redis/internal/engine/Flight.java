package dev.quota.redis.internal.engine;

import dev.quota.core.QuotaStoreException;
import dev.quota.core.spi.StoreFailures;
import dev.quota.redis.internal.transport.RedisLink;
import dev.quota.redis.internal.transport.ReplyListener;
import dev.quota.redis.internal.transport.ScriptReply;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;

/**
 * Commands on their way to Redis on behalf of some jobs: a compare-and-swap script
 * ({@link ScriptFlight}), the reads a round needs first ({@link ReadFlight}), or the deletion of
 * unreadable bucket bytes ({@link RepairFlight}). While a flight is out its keys are in flight:
 * no other job on them is computed until its reply is settled.
 *
 * <p>Sent and settled by the combiner ({@link Pipeline}); the reply completes on the client's
 * thread, which only queues the flight for settling and wakes a waiter.
 */
public abstract class Flight extends LinkedQueue.Linked<Flight> implements BiConsumer<Object, Throwable>,
        ReplyListener {

    @Nullable CompletableFuture<?> reply;
    long sentWallNanos;
    /** The pipeline that sent it, told when the reply comes ({@link #accept}); set before it is sent. */
    @Nullable Pipeline reportsTo;
    /** Set once its reply was settled (the combiner's alone). */
    boolean settled;

    /** How many keys the flight's commands carry. */
    abstract int keyCount();

    /** The {@code i}th key: the hot loops read keys by index, with no list of them. */
    abstract String key(int i);

    /** How many jobs wait for the reply (their waiters are woken when it comes; the first that still waits settles it). */
    abstract int jobCount();

    /** The {@code i}th job. */
    abstract CasJob job(int i);

    /** A copy of the keys, for what outlives the flight (a repair). */
    final List<String> keyList() {
        List<String> keys = new ArrayList<>(keyCount());
        for (int i = 0; i < keyCount(); i++) {
            keys.add(key(i));
        }
        return keys;
    }

    /** A copy of the jobs, for what outlives the flight (a repair). */
    final List<CasJob> jobList() {
        List<CasJob> jobs = new ArrayList<>(jobCount());
        for (int j = 0; j < jobCount(); j++) {
            jobs.add(job(j));
        }
        return jobs;
    }

    /** Sends the commands; answers the future their reply completes. */
    abstract CompletableFuture<?> send(RedisLink link);

    /** The reply of a flight sent. */
    final CompletableFuture<?> reply() {
        CompletableFuture<?> sent = reply;
        if (sent == null) {
            throw new IllegalStateException("flight not sent");
        }
        return sent;
    }

    /**
     * The reply came (the Redis client's thread): queued for the pipeline to settle. The flight is
     * its own reply's callback, so sending it allocates no callback.
     */
    @Override
    public final void accept(@Nullable Object answer, @Nullable Throwable failure) {
        replied();
    }

    /** The reply came (the Redis client's thread, or whichever completed it): queued to be settled. */
    @Override
    public final void replied() {
        Objects.requireNonNull(reportsTo, "a flight is sent by a pipeline").arrived(this);
    }

    /**
     * Has {@code reply} tell this flight when it completes ({@link #replied}): a script's own reply
     * tells it without a callback object ({@link ScriptReply#whenDone}), any other through
     * {@code whenComplete}.
     */
    final void awaitReply(CompletableFuture<?> reply) {
        if (reply instanceof ScriptReply script) {
            script.whenDone(this);
        } else {
            // not kept: replied() only queues this flight, and the reply itself is read in settle
            CompletableFuture<?> unused = reply.whenComplete(this);
        }
    }

    /** The reply came (the combiner, holding the flag): answers, holds or fails the jobs. */
    abstract void settle(Pipeline pipeline);

    /** What a reply that came holds; its failure as a store failure naming {@code key}. Never waits. */
    static <T> T outcome(CompletableFuture<T> reply, String key, long timeoutNanos) {
        try {
            return reply.getNow(null);
        } catch (CompletionException | java.util.concurrent.CancellationException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw failure(cause, key, timeoutNanos);
        }
    }

    /** A failed reply as the store failure a caller sees. */
    static QuotaStoreException failure(Throwable cause, String key, long timeoutNanos) {
        if (cause instanceof ExecutionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof TimeoutException) { // given up on by a step: Redis's own timeout did not fire
            return new QuotaStoreException("redis did not answer within "
                    + java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms (" + key + ")", cause);
        }
        return StoreFailures.wrap("redis failed (" + key + ")", cause);
    }
}
