package dev.quota.core;

import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Leased shares of hot buckets: how an instance serves a bucket it decides on often from a batch
 * of that bucket's tokens held in memory, instead of a store call per decision.
 *
 * <p>When this instance has made at least {@code hotRate} decisions on one bucket within a second,
 * its next decision that goes to the store asks for a batch of the bucket's tokens beyond its own,
 * in the same store call ({@link dev.quota.core.spi.Take#extra()}). The tokens leave the shared
 * bucket before any request is admitted on them, so the instances together never admit more than
 * the limit. The next decisions on that bucket are served from the batch without a store call,
 * until it is spent or {@code leaseTime} has passed; what is left then goes back to the store, off
 * the request path (also on close, on a config reload and when the store fails).
 *
 * <p>The cost is under-admission only: tokens a batch holds are not there for other instances. A
 * batch is sized by this instance's recent rate on the bucket, {@code ceil(rate x leaseTime)},
 * and never above {@code floor(fleetFraction x capacity / instances)} (the smallest capacity of
 * the bucket's limits, the live instance count); a batch under 2 tokens is not taken. All
 * instances together hold at most {@code fleetFraction x capacity} tokens of a bucket (plus, per
 * instance, one request's tokens less one). A limit of 500 per second over 8 instances with the
 * defaults: batches of at most 6 tokens, at most 48 held fleet-wide.
 *
 * <p>Never leased: lease sets ({@link Concurrency}), limits in {@link Mode#SHADOW}, calendar
 * windows, amount limits and the failed-key guard, the in-JVM fallback, and any plan or rule the
 * config marks {@code leasing: off}.
 *
 * <p>A value: equal when every setting is. Made by {@link #builder()} (every setting at its
 * default until set), or {@link #DEFAULT} and {@link #OFF}; a setting added in a later release gets
 * a default and a builder method, so code that makes one keeps compiling.
 */
public final class TokenLeasing {

    /** The defaults: on, hot at 50 decisions a second, 500 ms batches, at most 10% of a capacity held. */
    public static final TokenLeasing DEFAULT = builder().build();

    /** No bucket is leased: every decision goes to the store. */
    public static final TokenLeasing OFF = builder().enabled(false).build();

    private final boolean enabled;
    private final int hotRate;
    private final Duration leaseTime;
    private final double fleetFraction;
    private final int maxKeys;

    private TokenLeasing(Builder b) {
        if (b.hotRate < 1) {
            throw new IllegalArgumentException("hotRate must be >= 1 but was " + b.hotRate);
        }
        if (b.leaseTime.compareTo(Duration.ofMillis(1)) < 0) {
            throw new IllegalArgumentException("leaseTime must be at least 1 ms but was " + b.leaseTime);
        }
        if (!(b.fleetFraction > 0 && b.fleetFraction <= 0.5)) {
            throw new IllegalArgumentException("fleetFraction must be above 0 and at most 0.5 but was "
                    + b.fleetFraction);
        }
        if (b.maxKeys < 1) {
            throw new IllegalArgumentException("maxKeys must be >= 1 but was " + b.maxKeys);
        }
        this.enabled = b.enabled;
        this.hotRate = b.hotRate;
        this.leaseTime = b.leaseTime;
        this.fleetFraction = b.fleetFraction;
        this.maxKeys = b.maxKeys;
    }

    /** A builder with every setting at its default ({@link #DEFAULT}). */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding these settings, to change some of them. */
    public Builder toBuilder() {
        return new Builder().enabled(enabled).hotRate(hotRate).leaseTime(leaseTime).fleetFraction(fleetFraction)
                .maxKeys(maxKeys);
    }

    /**
     * Whether any bucket is leased; default true. The config's global {@code leasing: off} turns it
     * off as well.
     */
    public boolean enabled() {
        return enabled;
    }

    /**
     * The decisions per second this instance makes on one bucket from which it leases batches of it,
     * {@code >= 1}; default 50.
     */
    public int hotRate() {
        return hotRate;
    }

    /** How long a batch is served before what is left of it goes back, at least 1 ms; default 500 ms. */
    public Duration leaseTime() {
        return leaseTime;
    }

    /** The most of a bucket's capacity all instances hold in batches at once, above 0 and at most 0.5; default 0.1. */
    public double fleetFraction() {
        return fleetFraction;
    }

    /**
     * How many buckets one instance watches for demand at once (a bucket beyond them is not leased
     * until others go quiet), {@code >= 1}; default 10,000.
     */
    public int maxKeys() {
        return maxKeys;
    }

    /**
     * The tokens leased batches of one bucket may hold on all instances at once, for requests of
     * {@code tokens} each over {@code instances} instances: {@code instances x (floor(fleetFraction x
     * capacity / instances) + tokens - 1)}, 0 when batches would be under 2 tokens. What
     * docs/operations.md publishes as the bound of under-admission.
     */
    public long heldAtMost(long capacity, int instances, long tokens) {
        long batch = batchCap(capacity, instances);
        return batch < 2 ? 0 : instances * (batch + tokens - 1);
    }

    /** The largest batch one instance takes of a bucket of {@code capacity}: {@code floor(fleetFraction x capacity / instances)}. */
    long batchCap(long capacity, int instances) {
        return (long) Math.floor(fleetFraction * capacity / Math.max(1, instances));
    }

    @Override
    public boolean equals(@Nullable Object o) {
        return o instanceof TokenLeasing other && enabled == other.enabled && hotRate == other.hotRate
                && leaseTime.equals(other.leaseTime) && Double.compare(fleetFraction, other.fleetFraction) == 0
                && maxKeys == other.maxKeys;
    }

    @Override
    public int hashCode() {
        return Objects.hash(enabled, hotRate, leaseTime, fleetFraction, maxKeys);
    }

    @Override
    public String toString() {
        return "TokenLeasing[enabled=" + enabled + ", hotRate=" + hotRate + ", leaseTime=" + leaseTime
                + ", fleetFraction=" + fleetFraction + ", maxKeys=" + maxKeys + "]";
    }

    /** Collects the settings; {@link #build()} checks their ranges. */
    public static final class Builder {
        private boolean enabled = true;
        private int hotRate = 50;
        private Duration leaseTime = Duration.ofMillis(500);
        private double fleetFraction = 0.1;
        private int maxKeys = 10_000;

        private Builder() {
        }

        /** Whether any bucket is leased; default true. */
        public Builder enabled(boolean enabled) {
            this.enabled = enabled;
            return this;
        }

        /** The decisions per second on one bucket from which batches are leased; default 50 ({@code >= 1}, checked in {@link #build()}). */
        public Builder hotRate(int hotRate) {
            this.hotRate = hotRate;
            return this;
        }

        /**
         * How long a batch is served; default 500 ms (at least 1 ms, checked in {@link #build()}).
         *
         * @throws NullPointerException if {@code leaseTime} is null
         */
        public Builder leaseTime(Duration leaseTime) {
            this.leaseTime = Objects.requireNonNull(leaseTime, "leaseTime");
            return this;
        }

        /** The most of a capacity held in batches fleet-wide; default 0.1 (above 0, at most 0.5, checked in {@link #build()}). */
        public Builder fleetFraction(double fleetFraction) {
            this.fleetFraction = fleetFraction;
            return this;
        }

        /** How many buckets one instance watches for demand; default 10,000 ({@code >= 1}, checked in {@link #build()}). */
        public Builder maxKeys(int maxKeys) {
            this.maxKeys = maxKeys;
            return this;
        }

        /**
         * The settings.
         *
         * @throws IllegalArgumentException if a setting is out of its range
         */
        public TokenLeasing build() {
            return new TokenLeasing(this);
        }
    }

    /**
     * What happened to leased tokens, as {@link QuotaListener#onLeasedTokens} hears it.
     */
    public enum Event {
        /** A batch was taken with a decision (tokens: its size). */
        TAKEN,
        /** Unspent tokens went back to the store (on expiry, close, reload, a store failure). */
        RETURNED,
        /** A batch's deadline passed (tokens: what was left of it, then {@link #RETURNED}). */
        EXPIRED,
        /** Unspent tokens could not be given back: the bucket lacks them until it refills. */
        LOST
    }

    /**
     * What this instance did with leased tokens since it started.
     *
     * @param batches   batches taken
     * @param taken     tokens taken in batches
     * @param served    decisions' takes served from a batch, without a store call
     * @param returned  unspent tokens given back to the store
     * @param expired   batches whose deadline passed with tokens left
     * @param lost      unspent tokens that could not be given back
     * @param held      tokens held in batches now
     */
    public record Counts(long batches, long taken, long served, long returned, long expired, long lost, long held) {
    }
}
