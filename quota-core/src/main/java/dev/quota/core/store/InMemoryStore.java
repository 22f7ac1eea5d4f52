package dev.quota.core.store;

import dev.quota.core.internal.Bandwidths;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.QuotaStore;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.TimeMeter;
import io.github.bucket4j.TokensInheritanceStrategy;
import io.github.bucket4j.VerboseResult;
import java.time.Clock;
import java.time.Duration;
import java.util.Iterator;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Buckets in this JVM: for a single instance, for tests, and as the fallback while Redis is
 * unavailable. Bounded: a bucket idle longer than its time to refill fully (plus a margin) is
 * dropped, and past {@code maxBuckets} the oldest-expiring buckets are dropped first.
 */
public final class InMemoryStore implements QuotaStore {

    private final ConcurrentHashMap<String, Entry> buckets = new ConcurrentHashMap<>();
    private final TimeMeter time;
    private final long marginNanos;
    private final int maxBuckets;

    private InMemoryStore(Builder builder) {
        this.time = Bandwidths.timeMeter(builder.clock);
        this.marginNanos = builder.expiryMargin.toNanos();
        this.maxBuckets = builder.maxBuckets;
    }

    /** A builder with the defaults: system clock, 100,000 buckets, 60 s expiry margin. */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public ConsumeResult tryConsume(BucketKey key, BucketSpec spec, long tokens) {
        Entry entry = entry(key, spec);
        ConsumeResult result = Bandwidths.result(entry.bucket.asVerbose().tryConsumeAndReturnRemaining(tokens));
        entry.expiresAt = time.currentTimeNanos() + result.nanosToFull() + marginNanos;
        return result;
    }

    @Override
    public void addTokens(BucketKey key, BucketSpec spec, long tokens) {
        entry(key, spec).bucket.addTokens(tokens);
    }

    @Override
    public ConsumeResult peek(BucketKey key, BucketSpec spec) {
        VerboseResult<Long> verbose = entry(key, spec).bucket.asVerbose().getAvailableTokens();
        var diagnostics = verbose.getDiagnostics();
        return new ConsumeResult(true, diagnostics.getAvailableTokensPerEachBandwidth(), 0,
                diagnostics.calculateFullRefillingTime());
    }

    @Override
    public void reset(BucketKey key) {
        buckets.remove(key.value());
    }

    /** The number of buckets held now (expired ones may still be counted until the next sweep). */
    public int size() {
        return buckets.size();
    }

    @Override
    public String describe() {
        return "in-JVM buckets (this instance only)";
    }

    @Override
    public void close() {
        buckets.clear();
    }

    private Entry entry(BucketKey key, BucketSpec spec) {
        long now = time.currentTimeNanos();
        Entry entry = buckets.get(key.value());
        if (entry == null || entry.expiresAt < now) {
            if (buckets.size() >= maxBuckets) {
                sweep(now);
            }
            var builder = Bucket.builder().withCustomTimePrecision(time);
            for (var bandwidth : Bandwidths.configuration(spec).getBandwidths()) {
                builder.addLimit(bandwidth);
            }
            Entry fresh = new Entry(builder.build(), spec.version());
            fresh.expiresAt = now + marginNanos;
            entry = entry == null ? buckets.putIfAbsent(key.value(), fresh) : replaceExpired(key, entry, fresh);
            if (entry == null) {
                entry = fresh;
            }
        }
        if (entry.version < spec.version()) {
            synchronized (entry) {
                if (entry.version < spec.version()) {
                    entry.bucket.replaceConfiguration(Bandwidths.configuration(spec), TokensInheritanceStrategy.ADDITIVE);
                    entry.version = spec.version();
                }
            }
        }
        return entry;
    }

    private Entry replaceExpired(BucketKey key, Entry expired, Entry fresh) {
        return buckets.replace(key.value(), expired, fresh) ? fresh : buckets.computeIfAbsent(key.value(), k -> fresh);
    }

    /** Drops expired buckets; if that is not enough, drops a tenth of the rest. */
    private void sweep(long now) {
        buckets.values().removeIf(e -> e.expiresAt < now);
        int excess = buckets.size() - maxBuckets * 9 / 10;
        Iterator<Entry> it = buckets.values().iterator();
        while (excess-- > 0 && it.hasNext()) {
            it.next();
            it.remove();
        }
    }

    private static final class Entry {
        final Bucket bucket;
        volatile long version;
        volatile long expiresAt;

        Entry(Bucket bucket, long version) {
            this.bucket = bucket;
            this.version = version;
        }
    }

    /** Settings for an {@link InMemoryStore}. */
    public static final class Builder {
        private Clock clock = Clock.systemUTC();
        private int maxBuckets = 100_000;
        private Duration expiryMargin = Duration.ofSeconds(60);

        private Builder() {
        }

        /** The clock buckets refill by; default {@link Clock#systemUTC()}. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * The most buckets kept; default 100,000.
         *
         * @throws IllegalArgumentException if < 1
         */
        public Builder maxBuckets(int maxBuckets) {
            if (maxBuckets < 1) {
                throw new IllegalArgumentException("maxBuckets must be >= 1 but was " + maxBuckets);
            }
            this.maxBuckets = maxBuckets;
            return this;
        }

        /**
         * How long a full bucket is kept after it refilled; default 60 seconds.
         *
         * @throws IllegalArgumentException if negative
         */
        public Builder expiryMargin(Duration margin) {
            if (margin.isNegative()) {
                throw new IllegalArgumentException("expiryMargin must be >= 0 but was " + margin);
            }
            this.expiryMargin = margin;
            return this;
        }

        /** The store. */
        public InMemoryStore build() {
            return new InMemoryStore(this);
        }
    }
}
