package dev.quota.jcache;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.cache.Cache;
import javax.cache.configuration.CompleteConfiguration;
import javax.cache.expiry.Duration;
import javax.cache.expiry.ExpiryPolicy;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How long the cache's own expiry policy keeps an entry after the store writes it, and a warning
 * when a bucket needs longer than that to be full again: the cache would drop it early, and an idle
 * customer would come back to a full bucket before its time.
 *
 * <p>The guaranteed lifetime is the shortest of the policy's durations that apply after a write:
 * creation, update, and access (a read sets it). A policy that leaves the expiry unchanged on update
 * while creation is finite ({@code CreatedExpiryPolicy}) guarantees nothing after an update. With
 * per-entry expiry, each write sets creation and update itself, and only access remains.
 */
final class CacheLifetime {

    private static final Logger log = LoggerFactory.getLogger(JCacheStore.class);
    private static final long WARN_EVERY_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final String cacheName;
    /** Long.MAX_VALUE: entries never expire by the cache's policy. */
    private final long guaranteedNanos;
    private final AtomicLong nextWarning = new AtomicLong(System.nanoTime());

    private CacheLifetime(String cacheName, long guaranteedNanos) {
        this.cacheName = cacheName;
        this.guaranteedNanos = guaranteedNanos;
    }

    /**
     * The lifetime {@code cache}'s policy guarantees; with {@code perEntryExpiry}, only its access
     * duration counts. A cache whose configuration cannot be read is taken to keep entries forever.
     */
    static CacheLifetime of(Cache<?, ?> cache, boolean perEntryExpiry) {
        ExpiryPolicy policy = policy(cache);
        if (policy == null) {
            return new CacheLifetime(cache.getName(), Long.MAX_VALUE);
        }
        long access = policy.getExpiryForAccess() == null ? Long.MAX_VALUE : nanos(policy.getExpiryForAccess());
        if (perEntryExpiry) {
            return new CacheLifetime(cache.getName(), access);
        }
        long creation = nanos(policy.getExpiryForCreation());
        Duration update = policy.getExpiryForUpdate();
        long afterUpdate = update != null ? nanos(update) : creation == Long.MAX_VALUE ? Long.MAX_VALUE : 0;
        return new CacheLifetime(cache.getName(), Math.min(access, Math.min(creation, afterUpdate)));
    }

    /** Nanoseconds the cache keeps a written entry at least; {@link Long#MAX_VALUE} for ever. */
    long guaranteedNanos() {
        return guaranteedNanos;
    }

    /**
     * Logs a warning, at most once a minute, when a bucket that needs {@code nanosToFull} to be full
     * again may be dropped before.
     */
    void check(String key, long nanosToFull) {
        if (nanosToFull <= guaranteedNanos) {
            return;
        }
        long now = System.nanoTime();
        long due = nextWarning.get();
        if (now - due >= 0 && nextWarning.compareAndSet(due, now + WARN_EVERY_NANOS)) {
            log.warn("bucket {} needs {} s to be full again, but cache '{}' may drop it {} s after it is written:"
                            + " a customer idle that long comes back to a full bucket early. Give the cache a"
                            + " created-or-updated expiry (ModifiedExpiryPolicy) of at least the longest time to"
                            + " refill fully plus a margin, and no shorter access expiry",
                    key, seconds(nanosToFull), cacheName, seconds(guaranteedNanos));
        }
    }

    /**
     * Logs a warning when the cache never drops the store's entries: every customer ever seen then
     * keeps its bucket in the grid for good.
     */
    void warnIfEternal() {
        if (guaranteedNanos == Long.MAX_VALUE) {
            log.warn("cache '{}' keeps bucket entries until they are removed: idle customers' buckets are never"
                    + " dropped and the grid's memory grows with every customer seen. Give the cache a"
                    + " created-or-updated expiry (ModifiedExpiryPolicy) of at least the longest time to refill"
                    + " fully plus a margin, e.g. JCacheStore.cache(manager, name, expireAfterWrite)", cacheName);
        }
    }

    /** A few words for {@code describe()}. */
    String describe() {
        return guaranteedNanos == Long.MAX_VALUE ? "kept until removed"
                : "kept at least " + seconds(guaranteedNanos) + " s after a write";
    }

    private static @Nullable ExpiryPolicy policy(Cache<?, ?> cache) {
        try {
            @SuppressWarnings("unchecked")
            CompleteConfiguration<?, ?> config = cache.getConfiguration(CompleteConfiguration.class);
            return config.getExpiryPolicyFactory() == null ? null : config.getExpiryPolicyFactory().create();
        } catch (RuntimeException e) {
            log.debug("cannot read the expiry policy of cache '{}': {}", cache.getName(), e.toString());
            return null;
        }
    }

    private static long nanos(Duration duration) {
        if (duration.isEternal()) {
            return Long.MAX_VALUE;
        }
        long amount = duration.getDurationAmount();
        long nanos = duration.getTimeUnit().toNanos(amount);
        return nanos == Long.MAX_VALUE ? Long.MAX_VALUE : nanos;
    }

    private static String seconds(long nanos) {
        return nanos == Long.MAX_VALUE ? "for ever" : String.valueOf(TimeUnit.NANOSECONDS.toSeconds(nanos));
    }
}
