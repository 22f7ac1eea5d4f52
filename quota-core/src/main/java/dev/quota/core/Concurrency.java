package dev.quota.core;

import dev.quota.core.spi.BucketSpec;
import java.time.Duration;
import java.util.Objects;

/**
 * An in-flight limit: at most {@code limit} requests of one customer running at once, on a plan
 * (all its requests) or a rule (its endpoint). A request takes a lease when it is admitted, in the
 * same store call as its rate limits, and gives it back when its response has been written; a
 * request beyond the limit is refused without {@code Retry-After} (nobody knows when a running
 * request ends).
 *
 * <p>{@code concurrency: 5} on the transfers rule: five transfers of one customer may run at once,
 * across every instance; the sixth is refused until one of them ends. A lease whose holder never
 * gives it back (the instance was killed, the request thread is stuck) comes back
 * {@code leaseTimeout} after it was taken, by the store's clock.
 *
 * @param limit        requests running at once, 1 to {@link BucketSpec#MAX_LEASES}; a customer's
 *                     multiplier scales it (at most to {@link BucketSpec#MAX_LEASES})
 * @param leaseTimeout how long a lease is held when it is never given back; at least 1 s. A request
 *                     running longer than this stops counting against the limit then. Default
 *                     {@link #DEFAULT_LEASE_TIMEOUT}
 */
public record Concurrency(long limit, Duration leaseTimeout) {

    /**
     * 60 s: longer than a synchronous API request runs behind the usual proxy and load balancer
     * timeouts (often 60 s idle), so a running request keeps its lease; short enough that the
     * leases of a killed instance come back within a minute.
     */
    public static final Duration DEFAULT_LEASE_TIMEOUT = Duration.ofSeconds(60);

    /** The name of an in-flight limit: its policy is {@code <plan>-in-flight} or {@code <rule>-in-flight}. */
    public static final String NAME = "in-flight";

    /** @throws IllegalArgumentException if limit is not 1 to {@link BucketSpec#MAX_LEASES} or the timeout is under 1 s */
    public Concurrency {
        if (limit < 1 || limit > BucketSpec.MAX_LEASES) {
            throw new IllegalArgumentException("concurrency must be 1 to " + BucketSpec.MAX_LEASES + " but was " + limit);
        }
        Objects.requireNonNull(leaseTimeout, "leaseTimeout");
        if (leaseTimeout.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new IllegalArgumentException("leaseTimeout must be at least 1s but was " + leaseTimeout);
        }
    }

    /** At most {@code limit} at once, leases held at most {@link #DEFAULT_LEASE_TIMEOUT}. */
    public static Concurrency of(long limit) {
        return new Concurrency(limit, DEFAULT_LEASE_TIMEOUT);
    }

    /** The limit as its status reports it: {@code in-flight}, capacity {@link #limit}, all back within the timeout. */
    Limit asLimit() {
        return new Limit(NAME, limit, Refill.interval(limit, leaseTimeout));
    }
}
