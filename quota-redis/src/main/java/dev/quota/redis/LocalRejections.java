package dev.quota.redis;

import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ConsumeResult;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.TimeMeter;
import io.github.bucket4j.VerboseResult;
import java.util.Iterator;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLongArray;
import org.jspecify.annotations.Nullable;

/**
 * Remembers, per bucket key, until when a consume of N tokens cannot succeed, so that a customer
 * whose bucket is empty is rejected from memory, without a Redis command, until its next token is
 * due.
 *
 * <p>Capacity 100, refill 100 per second, a client sending 2,000 per second: the request that takes
 * the last token also learns that the next token is due in 10 ms; the ~19 requests of those 10 ms
 * are rejected here with {@code remaining 0} and the rest of the 10 ms as the wait, and the first
 * request after them goes to Redis again.
 *
 * <p>Exact-safe: a remembered entry only ever rejects, and only requests of at least as many tokens
 * on the same spec; consumption by other instances can only push the due time later. What can make
 * a token available earlier is a refund ({@code addTokens}) or a {@code reset} of the key: on this
 * instance they clear the entry (in-flight consumes that read Redis before them are not
 * remembered); on another instance they cannot be seen, so an entry is trusted for at most
 * {@code horizon} (default 1 s) before Redis is asked again, whatever the wait (a daily quota
 * reset by support is honoured within that time).
 */
final class LocalRejections {

    private static final int STRIPES = 64;

    private final ConcurrentHashMap<String, Entry> entries = new ConcurrentHashMap<>();
    /** Bumped by every forget, per stripe of keys: a remember that saw an older stamp is dropped. */
    private final AtomicLongArray stamps = new AtomicLongArray(STRIPES);
    private final TimeMeter time;
    private final long horizonNanos;
    private final int maxEntries;

    /**
     * @param horizonNanos the longest an entry is trusted; 0 turns local rejections off
     * @param maxEntries   the most keys remembered at once
     */
    LocalRejections(TimeMeter time, long horizonNanos, int maxEntries) {
        this.time = time;
        this.horizonNanos = horizonNanos;
        this.maxEntries = maxEntries;
    }

    /**
     * The rejection of a consume of {@code tokens} from {@code key} that Redis would answer now, or
     * null when Redis must be asked.
     */
    @Nullable ConsumeResult reject(BucketKey key, BucketSpec spec, long tokens) {
        if (horizonNanos == 0) {
            return null;
        }
        Entry entry = entries.get(key.value());
        if (entry == null || tokens < entry.tokens || !(entry.spec == spec || entry.spec.equals(spec))) {
            return null;
        }
        long now = time.currentTimeNanos();
        if (now >= entry.trustedUntil) {
            entries.remove(key.value(), entry);
            return null;
        }
        long wait = entry.dueAt - now;
        return new ConsumeResult(false, entry.remaining.clone(), wait, Math.max(wait, entry.fullAt - now));
    }

    /** The stamp to pass to {@link #remember}, read before Redis is asked. */
    long stamp(BucketKey key) {
        return stamps.get(stripe(key));
    }

    /**
     * Remembers when the next consume can succeed, if not now: after a rejection, the probe's wait
     * for {@code tokens}; after a consume that emptied the bucket, the delay until one token is
     * back, which Bucket4j computes from the state the consume left (no extra command).
     */
    void remember(BucketKey key, BucketSpec spec, long tokens, long stamp, VerboseResult<ConsumptionProbe> verbose,
                  ConsumeResult result) {
        if (horizonNanos == 0) {
            return;
        }
        long operationTime = verbose.getOperationTimeNanos();
        // after a consume: when a single token is back, which answers for requests of any size
        long answersFor = result.consumed() ? 1 : tokens;
        long delay = result.consumed()
                ? verbose.getState().calculateDelayNanosAfterWillBePossibleToConsume(1, operationTime, false)
                : result.nanosToWait();
        if (delay <= 0) {
            return;
        }
        int stripe = stripe(key);
        if (stamps.get(stripe) != stamp) {
            return; // a refund or reset ran while Redis answered: the answer may be outdated
        }
        // after a consume, the tokens it left are what the next one would be rejected with
        Entry entry = new Entry(spec, answersFor, result.remaining().clone(), saturatedAdd(operationTime, delay),
                operationTime + Math.min(delay, horizonNanos), saturatedAdd(operationTime, result.nanosToFull()));
        if (entries.put(key.value(), entry) == null && entries.size() > maxEntries) {
            sweep(); // only a new key can push past the bound
        }
        if (stamps.get(stripe) != stamp) {
            entries.remove(key.value(), entry); // a forget slipped in between the check and the put
        }
    }

    /** Drops what is remembered about {@code key}; call after a refund or reset reached Redis. */
    void forget(BucketKey key) {
        stamps.incrementAndGet(stripe(key));
        entries.remove(key.value());
    }

    /** The number of keys remembered now (expired ones count until they are next looked at). */
    int size() {
        return entries.size();
    }

    void clear() {
        entries.clear();
    }

    /** Drops entries no longer trusted; if that is not enough, a tenth of the rest. */
    private void sweep() {
        long now = time.currentTimeNanos();
        entries.values().removeIf(e -> now >= e.trustedUntil);
        int excess = entries.size() - maxEntries * 9 / 10;
        Iterator<Entry> it = entries.values().iterator();
        while (excess-- > 0 && it.hasNext()) {
            it.next();
            it.remove();
        }
    }

    private static int stripe(BucketKey key) {
        return key.value().hashCode() & (STRIPES - 1);
    }

    private static long saturatedAdd(long a, long b) {
        long sum = a + b;
        return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
    }

    /**
     * @param tokens       the consume size this entry answers for (and any larger one)
     * @param dueAt        when such a consume can succeed, in the store clock's nanoseconds
     * @param trustedUntil when Redis must be asked again: dueAt, or sooner after the horizon
     * @param fullAt       when the bucket was due to be full, for {@code nanosToFull}
     */
    private record Entry(BucketSpec spec, long tokens, long[] remaining, long dueAt, long trustedUntil,
                         long fullAt) {
    }
}
