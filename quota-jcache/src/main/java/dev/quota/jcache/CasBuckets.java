package dev.quota.jcache;

import dev.quota.core.spi.Adjustment;
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
import java.util.ArrayList;
import java.util.List;
import javax.cache.Cache;
import org.jspecify.annotations.Nullable;

/**
 * Buckets changed by compare-and-swap, all of a customer's buckets in one entry ({@link BucketEntry}):
 * read the entry's bytes, compute the change of every bucket of the decision in this JVM with
 * {@link BucketMath}, and write the new bytes only if the entry still holds the bytes read
 * ({@code putIfAbsent} for a new entry, {@code replace(key, old, new)} otherwise). A decision over
 * a customer's buckets is one read and one write, atomic over all of them. A lost race reads again
 * and computes again, up to the retry budget of lost races. Time spent in the grid does not count:
 * a slow member is not contention, and each lost race means another change was written, so
 * contention always makes progress. By default {@link MergedDecisions} puts this JVM's concurrent
 * decisions of one entry in one change, so the race for an entry is between JVMs, not threads.
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
    /** {@code cache 'name'}, for messages. */
    private final String label;

    CasBuckets(Cache<String, byte[]> cache, EntryWriter writer, CacheLifetime lifetime, TimeMeter time,
               int maxLostRaces, long marginNanos) {
        this.cache = cache;
        this.writer = writer;
        this.lifetime = lifetime;
        this.time = time;
        this.maxLostRaces = maxLostRaces;
        this.marginNanos = marginNanos;
        this.label = "cache '" + cache.getName() + "'";
    }

    @Override
    public List<ConsumeResult> consume(List<Take> group) {
        return decideAll(BucketEntry.entryKey(group.get(0).key().value()), List.of(group)).get(0);
    }

    /**
     * One change of entry {@code key} that decides each group (takes of its buckets) in turn on the
     * entry as the one before left it: one read, one write; a lost race computes them all again.
     *
     * @return the results of each group, in order
     */
    List<List<ConsumeResult>> decideAll(String key, List<List<Take>> groups) {
        int races = 0;
        while (true) {
            List<List<ConsumeResult>> results = attempt(key, groups);
            if (results != null) {
                return results;
            }
            lostRace(key, ++races);
        }
    }

    /**
     * One attempt at {@link #decideAll}: reads the entry, decides every group, and writes the entry
     * if it still holds what was read.
     *
     * @return the results of each group, in order; null when the race was lost (nothing written)
     */
    @Nullable List<List<ConsumeResult>> attempt(String key, List<List<Take>> groups) {
        Stored stored = read(key);
        long now = time.currentTimeNanos();
        List<List<ConsumeResult>> results = new ArrayList<>(groups.size());
        BucketEntry after = stored.entry;
        for (List<Take> group : groups) {
            BucketEntry.Decision decision = after.decide(group, now);
            results.add(decision.results());
            after = decision.after();
        }
        // refused with nothing charged writes nothing
        return after == stored.entry || write(key, stored, after, now) ? results : null;
    }

    @Override
    public void adjust(List<Adjustment> group) {
        String key = BucketEntry.entryKey(group.get(0).key().value());
        int races = 0;
        while (true) {
            Stored stored = read(key);
            long now = time.currentTimeNanos();
            if (write(key, stored, stored.entry.adjusted(group, now), now)) {
                return;
            }
            lostRace(key, ++races);
        }
    }

    @Override
    public ConsumeResult peek(BucketKey bucket, BucketSpec spec) {
        Stored stored = read(BucketEntry.entryKey(bucket.value()));
        return BucketMath.peek(stored.entry.get(BucketEntry.field(bucket.value())), spec, time.currentTimeNanos());
    }

    @Override
    public void reset(BucketKey bucket) {
        String key = BucketEntry.entryKey(bucket.value());
        String field = BucketEntry.field(bucket.value());
        int races = 0;
        while (true) {
            Stored stored = read(key);
            if (stored.entry.get(field) == null
                    || write(key, stored, stored.entry.with(field, null), time.currentTimeNanos())) {
                return;
            }
            lostRace(key, ++races);
        }
    }

    /** The entry as stored; bytes that are not an entry are removed (with a warning) and count as none. */
    private Stored read(String key) {
        byte[] bytes = cache.get(key);
        BucketEntry entry = UnreadableBuckets.read(label, key, bytes, BucketEntry::decode,
                unreadable -> cache.remove(key, unreadable));
        return entry == null ? Stored.NONE : new Stored(bytes, entry);
    }

    /**
     * Writes {@code after} over what {@code stored} read, without the buckets that are full again; an
     * entry left with no bucket is removed.
     *
     * @return false when the entry changed since it was read (a lost race)
     */
    private boolean write(String key, Stored stored, BucketEntry after, long now) {
        BucketEntry kept = after.withoutFull(now);
        if (kept.isEmpty()) {
            return stored.bytes == null || cache.remove(key, stored.bytes);
        }
        long nanosToFull = kept.nanosToFull(now);
        long keep = RefillTimes.plus(nanosToFull, marginNanos);
        // what any state of these buckets may need, whatever another instance wrote since the read
        long fromEmpty = Math.max(kept.fromEmptyNanos(), stored.entry.fromEmptyNanos());
        long keepAny = RefillTimes.plus(Math.max(nanosToFull, fromEmpty), marginNanos);
        byte[] bytes = kept.encode();
        boolean written = stored.bytes == null ? writer.create(key, bytes, keep, keepAny)
                : writer.replace(key, stored.bytes, bytes, keep, keepAny);
        if (written) {
            lifetime.check(key, nanosToFull);
        }
        return written;
    }

    /** Counts a lost race; past the budget, fails the call (a 503 for its decision). */
    void lostRace(String key, int races) {
        RetryBudget.check(races, maxLostRaces, "entry " + key + " in " + label);
    }

    /** What a key holds: its bytes (null: no entry) and the buckets they encode. */
    private record Stored(
            // the bytes as read, what the compare-and-set expects to find: the record is never compared
            @SuppressWarnings("ArrayRecordComponent") byte @Nullable [] bytes,
            BucketEntry entry) {
        static final Stored NONE = new Stored(null, BucketEntry.EMPTY);
    }
}
