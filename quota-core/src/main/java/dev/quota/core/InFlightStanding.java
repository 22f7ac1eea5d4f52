package dev.quota.core;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Where one in-flight limit ({@link Concurrency}) stands for one customer, across every instance:
 * how many of its leases are held now, of how many, and when the oldest one ends if nobody gives
 * it back. {@code concurrency: 3} on rule {@code imports} with two imports running, the first
 * taken at 10:00:00 with a 60 s lease timeout: {@code imports-in-flight}, held 2 of 3, the oldest
 * ends at 10:01:00.
 *
 * @param policy         {@code <plan>-in-flight} or {@code <rule>-in-flight}
 * @param held           leases held now (by running requests, or by requests whose instance died and
 *                       whose lease has not timed out yet)
 * @param limit          leases the customer may hold at once (the customer's multiplier applied)
 * @param leaseTimeout   how long a lease is held when it is never given back
 * @param oldestDeadline when the oldest held lease ends on its own; null when none is held
 */
public record InFlightStanding(String policy, long held, long limit, Duration leaseTimeout,
                               @Nullable Instant oldestDeadline) {

    /** @throws NullPointerException if policy or leaseTimeout is null */
    public InFlightStanding {
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(leaseTimeout, "leaseTimeout");
    }
}
