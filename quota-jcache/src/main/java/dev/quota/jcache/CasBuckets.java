package dev.quota.jcache;

import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketMath;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.RefillTimes;
import dev.quota.core.spi.RetryBudget;
import dev.quota.core.spi.Take;
import dev.quota.core.spi.UnreadableBuckets;
import io.github.bucket4j.TimeMeter;
import io.github.bucket4j.distributed.remote.RemoteBucketState;
import java.util.List;
import javax.cache.Cache;
import org.jspecify.annotations.Nullable;

/**
 * Buckets changed by compare-and-swap: read the bucket's bytes, compute the change in this JVM with
 * {@link BucketMath}, and write the new bytes only if the entry still holds the bytes read
 * ({@code putIfAbsent} for a new bucket, {@code replace(key, old, new)} otherwise). A lost race
 * reads again and computes again, up to the retry budget of lost races. Time spent in the grid
 * does not count: a slow member is not contention, and each lost race means another change was
 * written, so contention always makes progress.
 *
 * <p>Only {@code byte[]} travels between members: no class of the application or of Bucket4j is
 * ever deserialized on another member. Correct only where {@code replace} compares values by
 * content, which {@link JCacheStoreBuilder#build()} checks.
 */
final class CasBuckets implements Buckets {


    private final Cache<String, byte[]> cache;
    private final EntryWriter writer;
    private final CacheLifetime lifetime;
    private final TimeMeter time;
    /** The most races one change may lose. */
    private final int maxLostRaces;
    private final long marginNanos;

    CasBuckets(Cache<String, byte[]> cache, EntryWriter writer, CacheLifetime lifetime, TimeMeter time,
               int maxLostRaces, long marginNanos) {
        this.cache = cache;
        this.writer = writer;
        this.lifetime = lifetime;
        this.time = time;
        this.maxLostRaces = maxLostRaces;
        this.marginNanos = marginNanos;
    }

    @Override
    public ConsumeResult consume(Take take) {
        String key = take.key().value();
        int races = 0;
        while (true) {
            Stored stored = read(key);
            long now = time.currentTimeNanos();
            BucketMath.Outcome outcome = BucketMath.decide(List.of(take), new RemoteBucketState[] {stored.state}, now);
            RemoteBucketState after = outcome.writes()[0];
            ConsumeResult result = outcome.results().get(0);
            if (after == null) {
                return result; // refused, and nothing charged: nothing to write
            }
            if (write(key, stored.bytes, after, result.nanosToFull(), take.spec())) {
                return result;
            }
            lostRace(key, ++races);
        }
    }

    @Override
    public void addTokens(BucketKey key, BucketSpec spec, long tokens) {
        String k = key.value();
        int races = 0;
        while (true) {
            Stored stored = read(k);
            long now = time.currentTimeNanos();
            RemoteBucketState after = BucketMath.addTokens(stored.state, spec, tokens, now);
            if (write(k, stored.bytes, after, after.calculateFullRefillingTime(now), spec)) {
                return;
            }
            lostRace(k, ++races);
        }
    }

    /** The bucket as stored; bytes that are not a bucket state are removed (with a warning) and count as none. */
    private Stored read(String key) {
        byte[] bytes = cache.get(key);
        RemoteBucketState state = UnreadableBuckets.read("cache '" + cache.getName() + "'", key, bytes,
                unreadable -> cache.remove(key, unreadable));
        return state == null ? Stored.NONE : new Stored(bytes, state);
    }

    private boolean write(String key, byte @Nullable [] expected, RemoteBucketState after, long nanosToFull,
                          BucketSpec spec) {
        byte[] bytes = BucketMath.serialize(after);
        long keep = RefillTimes.plus(nanosToFull, marginNanos);
        long keepAny = RefillTimes.plus(Math.max(nanosToFull, RefillTimes.fromEmptyNanos(spec)), marginNanos);
        boolean written = expected == null ? writer.create(key, bytes, keep, keepAny)
                : writer.replace(key, expected, bytes, keep, keepAny);
        if (written) {
            lifetime.check(key, nanosToFull);
        }
        return written;
    }

    /** Counts a lost race; past the budget, fails the call (a 503 for its decision). */
    private void lostRace(String key, int races) {
        RetryBudget.check(races, maxLostRaces, "bucket " + key + " in cache '" + cache.getName() + "'");
    }

    /** What a key holds: its bytes (null: no entry) and the state they encode. */
    private record Stored(byte @Nullable [] bytes, @Nullable RemoteBucketState state) {
        static final Stored NONE = new Stored(null, null);
    }
}
