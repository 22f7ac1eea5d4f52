package dev.quota.jcache;

import com.hazelcast.cache.HazelcastExpiryPolicy;
import com.hazelcast.cache.ICache;
import java.util.concurrent.TimeUnit;
import javax.cache.expiry.Duration;
import javax.cache.expiry.ExpiryPolicy;

/**
 * Writes through Hazelcast's {@link ICache}, giving each entry its own expiry: the time its bucket
 * needs to be full again plus the margin, so an idle customer's entry goes as soon as it would be
 * full anyway. The expiry travels as a {@link HazelcastExpiryPolicy}, a Hazelcast class every member
 * knows (no application class is deserialized on another member).
 *
 * <p>Loaded only when Hazelcast is on the class path; see {@link EntryWriters}.
 */
final class HazelcastWriter implements EntryWriter {

    private final ICache<String, byte[]> cache;

    @SuppressWarnings("unchecked")
    HazelcastWriter(Object icache) {
        this.cache = (ICache<String, byte[]>) icache;
    }

    @Override
    public boolean create(String key, byte[] value, long keepNanos, long keepAnyNanos) {
        return cache.putIfAbsent(key, value, policy(keepNanos, keepAnyNanos));
    }

    @Override
    public boolean replace(String key, byte[] expected, byte[] value, long keepNanos, long keepAnyNanos) {
        return cache.replace(key, expected, value, policy(keepNanos, keepAnyNanos));
    }

    @Override
    public boolean perEntryExpiry() {
        return true;
    }

    /**
     * Creation and update: until the written bucket is full again. Access, which JCache applies when
     * a conditional write fails (the entry holds another state than the one this instance read):
     * the longest any state of the bucket needs, since the state now stored is unknown here.
     * Hazelcast cannot carry a null ("leave as it is") duration, so access is never left unset.
     */
    private static ExpiryPolicy policy(long keepNanos, long keepAnyNanos) {
        return new HazelcastExpiryPolicy(millis(keepNanos), millis(keepAnyNanos), millis(keepNanos));
    }

    /** At least 1 ms: a zero duration would mean "expire at once" to JCache. */
    private static Duration millis(long nanos) {
        long millis = nanos / 1_000_000 + (nanos % 1_000_000 == 0 ? 0 : 1);
        return new Duration(TimeUnit.MILLISECONDS, Math.max(1, millis));
    }
}
