package dev.quota.core.store;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import dev.quota.core.internal.Bandwidths;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketMath;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.QuotaStore;
import dev.quota.core.spi.Take;
import io.github.bucket4j.TimeMeter;
import io.github.bucket4j.distributed.remote.RemoteBucketState;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * Buckets in this JVM: for a single instance, for tests, and as the fallback while the shared store
 * is unavailable. A consume of several buckets is atomic: their locks are taken in key order, so
 * concurrent consumes never deadlock and never see each other half-done.
 *
 * <p>Bounded: a bucket untouched for longer than its time to refill fully plus {@code expiryMargin}
 * is dropped (it would be full again anyway), and past {@code maxBuckets} the least useful buckets
 * are dropped first (Caffeine's size eviction).
 */
public final class InMemoryStore implements QuotaStore {

    private final Cache<String, HeldBucket> buckets;
    private final TimeMeter time;
    private final long marginNanos;

    private InMemoryStore(Builder builder) {
        this.time = Bandwidths.timeMeter(builder.clock);
        this.marginNanos = builder.expiryMargin.toNanos();
        this.buckets = Caffeine.newBuilder()
                .maximumSize(builder.maxBuckets)
                .ticker(time::currentTimeNanos)
                .expireAfter(new Expiry<String, HeldBucket>() {
                    @Override
                    public long expireAfterCreate(String key, HeldBucket bucket, long now) {
                        return Math.max(0, bucket.expiresAt - now);
                    }

                    @Override
                    public long expireAfterUpdate(String key, HeldBucket bucket, long now, long current) {
                        return Math.max(0, bucket.expiresAt - now);
                    }

                    @Override
                    public long expireAfterRead(String key, HeldBucket bucket, long now, long current) {
                        return Math.max(0, bucket.expiresAt - now);
                    }
                })
                .executor(Runnable::run)
                .build();
    }

    /** A builder with the defaults: system clock, 100,000 buckets, 60 s expiry margin. */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public List<ConsumeResult> tryConsume(List<Take> takes) {
        BucketMath.requireDistinctKeys(takes);
        int n = takes.size();
        HeldBucket[] held = new HeldBucket[n];
        Integer[] order = lockOrder(takes);
        lockAll(takes, held, order);
        try {
            long now = time.currentTimeNanos();
            RemoteBucketState[] before = new RemoteBucketState[n];
            for (int i = 0; i < n; i++) {
                before[i] = held[i].state;
            }
            BucketMath.Outcome outcome = BucketMath.decide(takes, before, now);
            for (int i = 0; i < n; i++) {
                RemoteBucketState written = outcome.writes()[i];
                if (written != null) {
                    store(takes.get(i).key(), held[i], written, outcome.results().get(i).nanosToFull(), now);
                }
            }
            return outcome.results();
        } finally {
            for (int i = order.length - 1; i >= 0; i--) {
                held[order[i]].lock.unlock();
            }
        }
    }

    @Override
    public void addTokens(BucketKey key, BucketSpec spec, long tokens) {
        HeldBucket bucket = lockedBucket(key);
        try {
            long now = time.currentTimeNanos();
            RemoteBucketState after = BucketMath.addTokens(bucket.state, spec, tokens, now);
            store(key, bucket, after, after.calculateFullRefillingTime(now), now);
        } finally {
            bucket.lock.unlock();
        }
    }

    @Override
    public void releaseLease(BucketKey key, BucketSpec spec, long lease) {
        HeldBucket bucket = lockedBucket(key);
        try {
            long now = time.currentTimeNanos();
            RemoteBucketState after = BucketMath.releaseLease(bucket.state, spec, lease, now);
            store(key, bucket, after, after.calculateFullRefillingTime(now), now);
        } finally {
            bucket.lock.unlock();
        }
    }

    @Override
    public ConsumeResult peek(BucketKey key, BucketSpec spec) {
        HeldBucket bucket = buckets.getIfPresent(key.value());
        return BucketMath.peek(bucket == null ? null : bucket.state, spec, time.currentTimeNanos());
    }

    @Override
    public void reset(BucketKey key) {
        buckets.invalidate(key.value());
    }

    /** The number of buckets held now (expired ones are dropped first). */
    public long size() {
        buckets.cleanUp();
        return buckets.estimatedSize();
    }

    @Override
    public String describe() {
        return "in-JVM buckets (this instance only)";
    }

    @Override
    public void close() {
        buckets.invalidateAll();
    }

    /**
     * Locks the bucket of every take, in key order, each the one its key maps to once locked. The
     * cache may drop a bucket between looking it up and locking it (expiry, size, a reset): a caller
     * that then locked the dropped object would count in a bucket nobody else sees, beside the one
     * that replaced it. So every lock is checked against the mapping after all are taken, and on a
     * mismatch all are released and taken again.
     */
    private void lockAll(List<Take> takes, HeldBucket[] held, Integer[] order) {
        while (true) {
            for (int i = 0; i < held.length; i++) {
                held[i] = bucket(takes.get(i).key());
            }
            for (Integer i : order) {
                held[i].lock.lock();
            }
            boolean current = true;
            for (int i = 0; i < held.length && current; i++) {
                current = buckets.asMap().get(takes.get(i).key().value()) == held[i];
            }
            if (current) {
                return;
            }
            for (int i = order.length - 1; i >= 0; i--) {
                held[order[i]].lock.unlock();
            }
        }
    }

    /** The bucket of {@code key}, locked, and the one the key maps to (see {@link #lockAll}). */
    private HeldBucket lockedBucket(BucketKey key) {
        while (true) {
            HeldBucket bucket = bucket(key);
            boolean current = false;
            bucket.lock.lock();
            try {
                current = buckets.asMap().get(key.value()) == bucket;
            } finally {
                if (!current) {
                    bucket.lock.unlock(); // replaced meanwhile (or the look-up threw): held by no one
                }
            }
            if (current) {
                return bucket;
            }
        }
    }

    private HeldBucket bucket(BucketKey key) {
        return buckets.get(key.value(), this::newBucket);
    }

    private HeldBucket newBucket(String key) {
        return new HeldBucket(time.currentTimeNanos() + marginNanos);
    }

    private void store(BucketKey key, HeldBucket bucket, RemoteBucketState state, long nanosToFull, long now) {
        bucket.state = state;
        bucket.expiresAt = saturatedAdd(now, saturatedAdd(nanosToFull, marginNanos));
        // tell the cache the new expiry now: a bucket must not be dropped before it is full again
        buckets.policy().expireVariably().ifPresent(
                policy -> policy.setExpiresAfter(key.value(), Duration.ofNanos(Math.max(0, bucket.expiresAt - now))));
    }

    private static Integer[] lockOrder(List<Take> takes) {
        Integer[] order = new Integer[takes.size()];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        if (order.length > 1) {
            Arrays.sort(order, Comparator.comparing(i -> takes.get(i).key().value()));
        }
        return order;
    }

    private static long saturatedAdd(long a, long b) {
        long sum = a + b;
        return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
    }

    /** One bucket: its state, replaced (never mutated) under the lock, and when it may be dropped. */
    private static final class HeldBucket {
        final ReentrantLock lock = new ReentrantLock();
        volatile @Nullable RemoteBucketState state;
        volatile long expiresAt;

        HeldBucket(long expiresAt) {
            this.expiresAt = expiresAt;
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
         * @throws IllegalArgumentException if below 1
         */
        public Builder maxBuckets(int maxBuckets) {
            if (maxBuckets < 1) {
                throw new IllegalArgumentException("maxBuckets must be >= 1 but was " + maxBuckets);
            }
            this.maxBuckets = maxBuckets;
            return this;
        }

        /**
         * How long a bucket is kept after it would be full again; default 60 seconds.
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
