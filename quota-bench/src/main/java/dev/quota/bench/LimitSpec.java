package dev.quota.bench;

import java.time.Duration;

/**
 * The one limit every contender enforces in a scenario: {@code capacity} tokens, {@code capacity}
 * more every {@code period}, refilled continuously (Redisson's RRateLimiter: {@code capacity}
 * permits per {@code period}).
 *
 * @param capacity tokens a full bucket holds and tokens refilled per period
 * @param period   the refill period
 */
public record LimitSpec(long capacity, Duration period) {

    /** The most a limiter may admit for one key over {@code elapsedNanos}: a full bucket plus the refill. */
    public long allowedOver(long elapsedNanos) {
        double refilled = (double) capacity * elapsedNanos / period.toNanos();
        return capacity + (long) Math.floor(refilled);
    }

    @Override
    public String toString() {
        return capacity + " per " + Duration.ofNanos(period.toNanos()).toString().substring(2).toLowerCase()
                + " (burst " + capacity + ")";
    }
}
