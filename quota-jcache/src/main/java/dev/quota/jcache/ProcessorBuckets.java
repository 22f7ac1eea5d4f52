package dev.quota.jcache;

import dev.quota.core.spi.Adjustment;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketMath;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.Take;
import dev.quota.core.spi.UnreadableBuckets;
import io.github.bucket4j.TimeMeter;
import java.util.List;
import javax.cache.Cache;

/**
 * Buckets changed by an entry processor ({@link EntryChange}): each change of an entry, a decision
 * over all of a customer's buckets included, is one {@code Cache.invoke}, run where the entry lives,
 * atomically, in one round trip, with this JVM's clock reading; it answers each take's result.
 *
 * <p>The member that owns the entry must be able to deserialize the processor (this module on its
 * class path, and for Payara the same application name on every member and a calling thread with a
 * Jakarta EE context).
 */
final class ProcessorBuckets implements Buckets {

    private final Cache<String, byte[]> cache;
    private final CacheLifetime lifetime;
    private final TimeMeter time;
    /** {@code cache 'name'}, for messages. */
    private final String label;

    ProcessorBuckets(Cache<String, byte[]> cache, CacheLifetime lifetime, TimeMeter time) {
        this.cache = cache;
        this.lifetime = lifetime;
        this.time = time;
        this.label = "cache '" + cache.getName() + "'";
    }

    @Override
    public List<ConsumeResult> consume(List<Take> group) {
        String key = BucketEntry.entryKey(group.get(0).key().value());
        byte[] answered = cache.invoke(key, EntryChange.consume(group, time.currentTimeNanos()));
        if (answered == null) {
            throw new IllegalStateException("the entry processor of " + key + " answered nothing");
        }
        EntryChange.Answer answer = EntryChange.Answer.decode(answered);
        if (answer.written()) {
            lifetime.check(key, answer.nanosToFull());
        }
        return answer.results();
    }

    @Override
    public void adjust(List<Adjustment> group) {
        cache.invoke(BucketEntry.entryKey(group.get(0).key().value()),
                EntryChange.adjust(group, time.currentTimeNanos()));
    }

    /** Reads the entry (one {@code get}) and computes in this JVM: a peek writes nothing. */
    @Override
    public ConsumeResult peek(BucketKey bucket, BucketSpec spec) {
        String key = BucketEntry.entryKey(bucket.value());
        BucketEntry entry = UnreadableBuckets.read(label, key, cache.get(key), BucketEntry::decode,
                unreadable -> cache.remove(key, unreadable));
        return BucketMath.peek(entry == null ? null : entry.get(BucketEntry.field(bucket.value())), spec,
                time.currentTimeNanos());
    }

    @Override
    public void reset(BucketKey bucket) {
        cache.invoke(BucketEntry.entryKey(bucket.value()), EntryChange.reset(bucket));
    }

}
