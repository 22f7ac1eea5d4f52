package dev.quota.core;

import java.util.Objects;

/**
 * A caller whose usage is counted: an id and the plan it is on.
 *
 * <p>Customers come from the config file (API keys map to them) or are made up on the fly for
 * anonymous callers ({@code ip:203.0.113.7} on the anonymous plan) and authenticated principals.
 *
 * @param id         the stable identity buckets are keyed by; any string, it is hashed into keys
 * @param plan       the plan name
 * @param multiplier scales every capacity and refill of the plan (2.0 = twice the tier), {@code > 0}
 */
public record Customer(String id, String plan, double multiplier) {

    /** @throws IllegalArgumentException if id is empty or multiplier is not positive */
    public Customer {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(plan, "plan");
        if (id.isEmpty()) {
            throw new IllegalArgumentException("customer id must not be empty");
        }
        if (!(multiplier > 0) || Double.isInfinite(multiplier)) {
            throw new IllegalArgumentException("multiplier must be > 0 but was " + multiplier);
        }
    }

    /** A customer on {@code plan} with the plan's limits as they are. */
    public static Customer of(String id, String plan) {
        return new Customer(id, plan, 1.0);
    }
}
