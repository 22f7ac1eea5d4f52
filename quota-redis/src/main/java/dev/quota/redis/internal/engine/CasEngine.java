package dev.quota.redis.internal.engine;

import dev.quota.core.QuotaStoreException;
import dev.quota.core.spi.Adjustment;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.Take;
import dev.quota.core.spi.UnreadableBuckets;
import dev.quota.redis.internal.keystate.KeyState;
import dev.quota.redis.internal.keystate.KeyStates;
import dev.quota.redis.internal.transport.RedisLink;
import io.github.bucket4j.TimeMeter;
import io.github.bucket4j.distributed.remote.RemoteBucketState;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Bucket4j's compare-and-swap over Redis, for whole decisions and many callers at once.
 *
 * <p>Callers hand in jobs ({@link CasJob}: a consume of several buckets, a refund). One caller at
 * a time combines every job waiting ({@link Combiner}): it computes them in order on the states
 * this instance last wrote or saw ({@link KeyState}), then sends one script per Redis Cluster slot
 * (one in all for a standalone or Sentinel Redis) that checks every key still holds what was
 * assumed and writes the new states with their TTLs ({@link CasRound}, {@link ScriptFlight}). When
 * a key differs (another instance wrote it), the script writes nothing and answers what the keys
 * hold, and the jobs are computed again from that, in the next round trip. So a decision over five
 * buckets costs one round trip, a hot customer's concurrent requests share one, and a key nobody
 * else writes is never read before it is written.
 *
 * <p>Scripts are pipelined ({@link Pipeline}): the combiner never waits for a reply, so while one
 * script is on its way the next callers' jobs go out in another; on a key this instance writes
 * alone, too, computed on what the script in flight leaves there ({@link KeysInFlight}), while
 * jobs on a key other instances write wait for its reply. Every command goes through one
 * {@link RedisLink}, the seam where a test holds replies.
 */
public final class CasEngine {

    private final RedisLink link;
    private final TimeMeter clock;
    private final long timeoutNanos;
    private final KeyStates known;
    private final Pipeline pipeline;
    private final Combiner combiner;

    /**
     * @param link      where every command goes
     * @param clock     the time buckets are computed at
     * @param wallNanos how long a flight has been out (System.nanoTime unless a test freezes it)
     */
    public CasEngine(RedisLink link, TimeMeter clock, LongSupplier wallNanos, EngineSettings settings) {
        this.link = link;
        this.clock = clock;
        this.timeoutNanos = settings.timeoutNanos();
        this.known = new KeyStates(settings.maxKnownKeys());
        this.pipeline = new Pipeline(link, clock, wallNanos, settings, known);
        this.combiner = new Combiner(pipeline);
    }

    /** Takes tokens for one decision (the semantics of {@link dev.quota.core.spi.QuotaStore#tryConsume(List)}). */
    public List<ConsumeResult> consume(List<Take> takes) {
        return ConsumeJob.results(run(new ConsumeJob(takes)));
    }

    /** Several consumes at once, in one round trip when they can share one (one per slot in a cluster). */
    public List<List<ConsumeResult>> consumeAll(List<List<Take>> consumes) {
        List<CasJob> jobs = new ArrayList<>(consumes.size());
        for (List<Take> takes : consumes) {
            CasJob job = new ConsumeJob(takes);
            jobs.add(job);
            combiner.submit(job);
        }
        List<List<ConsumeResult>> out = new ArrayList<>(jobs.size());
        try {
            for (CasJob job : jobs) {
                out.add(ConsumeJob.results(combiner.await(job)));
            }
        } catch (RuntimeException | Error e) {
            jobs.forEach(CasJob::abandon); // this caller reads no more of them
            throw e;
        }
        return out;
    }

    /** Gives tokens back to one bucket, or takes them regardless when negative. */
    public void addTokens(BucketKey key, BucketSpec spec, long tokens) {
        run(new AddJob(List.of(Adjustment.ofTokens(key, spec, tokens))));
    }

    /**
     * Applies adjustments, one job per group (the buckets of one slot), all submitted before any is
     * awaited: one round trip when they can share one.
     */
    public void adjust(List<List<Adjustment>> groups) {
        List<CasJob> jobs = new ArrayList<>(groups.size());
        for (List<Adjustment> group : groups) {
            CasJob job = new AddJob(group);
            jobs.add(job);
            combiner.submit(job);
        }
        try {
            for (CasJob job : jobs) {
                combiner.await(job);
            }
        } catch (RuntimeException | Error e) {
            jobs.forEach(CasJob::abandon); // this caller reads no more of them
            throw e;
        }
    }

    /** Runs {@code job} through the combiner and answers its outcome ({@link CasJob#outcome}). */
    public Object run(CasJob job) {
        combiner.submit(job);
        return combiner.await(job);
    }

    /**
     * The bucket as Redis holds it now, read fresh on the caller's thread; a key that holds no
     * bucket counts as none (and is deleted, as {@link BucketRepair} does for every read).
     */
    public @Nullable RemoteBucketState read(String key) {
        byte[] bytes;
        try {
            bytes = await(link.get(key), key);
        } catch (QuotaStoreException e) {
            if (!BucketRepair.isWrongType(e) || !deleted(key, null, e)) {
                throw e;
            }
            return null;
        }
        return UnreadableBuckets.read("redis", key, bytes, unreadable -> deleted(key, unreadable, null));
    }

    private boolean deleted(String key, byte @Nullable [] unreadable, @Nullable QuotaStoreException failure) {
        try {
            return BucketRepair.deleted(key, await(link.deleteUnreadable(key, unreadable), key), unreadable, failure);
        } catch (QuotaStoreException e) {
            BucketRepair.couldNotDelete(key, e);
        }
        return false;
    }

    /** Deletes a key; this instance forgets what it knew of it. */
    public void delete(String key) {
        known.forgetLater(key);
        await(link.delete(key), key);
        known.forgetLater(key); // a round that ran meanwhile may have remembered what the key held before
    }

    /** Forgets everything remembered. */
    public void forgetAll() {
        known.forgetAllLater();
    }

    public long now() {
        return clock.currentTimeNanos();
    }

    /** Compare-and-swap scripts that found a key changed since the engine was built. */
    public long conflicts() {
        return pipeline.flying().conflicts();
    }

    /** How many jobs the last step left held behind keys in flight (for tests that order replies). */
    public int heldCount() {
        return pipeline.heldCount();
    }

    /** Waits on the caller's own thread (never the combiner's) for a single command's reply. */
    private <T> T await(CompletableFuture<T> future, String key) {
        try {
            return future.get(timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            future.cancel(true);
            Thread.currentThread().interrupt();
            throw new QuotaStoreException("interrupted while waiting for redis (" + key + ")", e);
        } catch (TimeoutException e) {
            future.cancel(false);
            throw Flight.failure(e, key, timeoutNanos);
        } catch (ExecutionException e) {
            throw Flight.failure(e.getCause() != null ? e.getCause() : e, key, timeoutNanos);
        }
    }
}
