package dev.quota.core;

import java.util.Objects;

/**
 * A caller whose usage is counted: an id, the plan it is on, and the kind of identity the id is.
 *
 * <p>Customers come from the config file or the application's {@link dev.quota.core.spi.CustomerDirectory}
 * (API keys and principals map to them: {@link Kind#ACCOUNT}), or are made up on the fly for an
 * authenticated principal the directory does not know ({@link Kind#PRINCIPAL}, {@code user:alice}),
 * an end user a trusted gateway names ({@link Kind#GATEWAY_USER}) and an anonymous client address
 * ({@link Kind#ADDRESS}, {@code ip:203.0.113.7}). Buckets are keyed by kind and id together, so a
 * configured customer named {@code ip:203.0.113.7} never shares a bucket with the anonymous caller
 * at that address.
 *
 * @param id         the stable identity buckets are keyed by; any string, it is hashed into keys
 * @param plan       the plan name
 * @param multiplier scales every capacity and refill of the plan (2.0 = twice the tier), {@code > 0}
 * @param kind       which namespace the id belongs to
 */
public record Customer(String id, String plan, double multiplier, Kind kind) {

    /** @throws IllegalArgumentException if id is empty or multiplier is not positive */
    public Customer {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(plan, "plan");
        Objects.requireNonNull(kind, "kind");
        if (id.isEmpty()) {
            throw new IllegalArgumentException("customer id must not be empty");
        }
        if (!(multiplier > 0) || Double.isInfinite(multiplier)) {
            throw new IllegalArgumentException("multiplier must be > 0 but was " + multiplier);
        }
    }

    /** A configured customer ({@link Kind#ACCOUNT}) with a multiplier. */
    public Customer(String id, String plan, double multiplier) {
        this(id, plan, multiplier, Kind.ACCOUNT);
    }

    /** A configured customer ({@link Kind#ACCOUNT}) on {@code plan} with the plan's limits as they are. */
    public static Customer of(String id, String plan) {
        return new Customer(id, plan, 1.0, Kind.ACCOUNT);
    }

    /** This customer on another plan, same id, multiplier and kind. */
    public Customer withPlan(String newPlan) {
        return new Customer(id, newPlan, multiplier, kind);
    }

    /** The namespaces of customer ids. */
    public enum Kind {
        /** A customer of the config or the application's directory, found by API key or principal. */
        ACCOUNT,
        /** An authenticated principal the directory does not know, counted by name ({@code user:alice}). */
        PRINCIPAL,
        /** An end user named by a trusted gateway's {@code identity.userHeader} ({@code user:u-42}). */
        GATEWAY_USER,
        /** An anonymous client, counted by address ({@code ip:203.0.113.7}, {@code ip:2001:db8:1:2::/64}). */
        ADDRESS
    }
}
