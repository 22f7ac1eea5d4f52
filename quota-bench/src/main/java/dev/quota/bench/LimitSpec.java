package dev.quota.bench;

import java.time.Duration;
import org.redisson.api.RedissonClient;

/**
 * The one limit every contender enforces in a scenario: {@code capacity} tokens, {@code capacity}
 * more every {@code period}, refilled continuously (Redisson's RRateLimiter: {@code capacity}
 * permits per {@code period}).
 *
 * @param capacity tokens a full bucket holds and tokens refilled per period
 * @param period   the refill period
 */
public record LimitSpec(long capacity, Duration period) implements Workload {

    /** The most a limiter may admit for one key over {@code elapsedNanos}: a full bucket plus the refill. */
    public long allowedOver(long elapsedNanos) {
        return greedyAllowed(capacity, capacity, period, elapsedNanos);
    }

    /**
     * The most a greedy bucket admits over {@code elapsedNanos}: full at the start, plus what refills.
     * Capacity 100, 50 per second, over 2.5 s: 100 + 125 = 225.
     */
    static long greedyAllowed(long capacity, long refill, Duration period, long elapsedNanos) {
        double refilled = (double) refill * elapsedNanos / period.toNanos();
        return capacity + (long) Math.floor(refilled);
    }

    @Override
    public Contender create(Kind kind, RedissonClient client, String namespace) {
        return kind.create(client, this, namespace);
    }

    @Override
    public Tally.Exactness exactness(Kind kind, Tally tally, long windowNanos, int from, int to) {
        return tally.exactness(this, windowNanos, from, to);
    }

    @Override
    public String toString() {
        return capacity + " per " + Duration.ofNanos(period.toNanos()).toString().substring(2).toLowerCase()
                + " (burst " + capacity + ")";
    }
}
