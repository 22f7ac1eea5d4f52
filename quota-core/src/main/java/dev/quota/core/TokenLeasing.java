package dev.quota.core;

import java.time.Duration;
import java.util.Objects;

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
 * @param enabled       whether any bucket is leased; default true. The config's global
 *                      {@code leasing: off} turns it off as well
 * @param hotRate       the decisions per second this instance makes on one bucket from which it
 *                      leases batches of it, {@code >= 1}; default 50
 * @param leaseTime     how long a batch is served before what is left of it goes back, at least
 *                      1 ms; default 500 ms
 * @param fleetFraction the most of a bucket's capacity all instances hold in batches at once,
 *                      above 0 and at most 0.5; default 0.1
 * @param maxKeys       how many buckets one instance watches for demand at once (a bucket beyond
 *                      them is not leased until others go quiet), {@code >= 1}; default 10,000
 */
public record TokenLeasing(boolean enabled, int hotRate, Duration leaseTime, double fleetFraction, int maxKeys) {

    /** The defaults: on, hot at 50 decisions a second, 500 ms batches, at most 10% of a capacity held. */
    public static final TokenLeasing DEFAULT = new TokenLeasing(true, 50, Duration.ofMillis(500), 0.1, 10_000);

    /** No bucket is leased: every decision goes to the store. */
    public static final TokenLeasing OFF = new TokenLeasing(false, 50, Duration.ofMillis(500), 0.1, 10_000);

    /** @throws IllegalArgumentException if a setting is out of its range (see the parameters) */
    public TokenLeasing {
        Objects.requireNonNull(leaseTime, "leaseTime");
        if (hotRate < 1) {
            throw new IllegalArgumentException("hotRate must be >= 1 but was " + hotRate);
        }
        if (leaseTime.compareTo(Duration.ofMillis(1)) < 0) {
            throw new IllegalArgumentException("leaseTime must be at least 1 ms but was " + leaseTime);
        }
        if (!(fleetFraction > 0 && fleetFraction <= 0.5)) {
            throw new IllegalArgumentException("fleetFraction must be above 0 and at most 0.5 but was " + fleetFraction);
        }
        if (maxKeys < 1) {
            throw new IllegalArgumentException("maxKeys must be >= 1 but was " + maxKeys);
        }
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
