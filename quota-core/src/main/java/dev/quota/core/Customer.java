package dev.quota.core;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

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
 * <p>A value: equal when id, plan, multiplier and kind are. Made by {@link #of(String, String)},
 * {@link #of(String, String, double)} or {@link #builder(String, String)}; a setting added in a
 * later release gets a default and a builder method, so code that makes one keeps compiling.
 */
public final class Customer {

    private final String id;
    private final String plan;
    private final double multiplier;
    private final Kind kind;

    private Customer(String id, String plan, double multiplier, Kind kind) {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(plan, "plan");
        Objects.requireNonNull(kind, "kind");
        if (id.isEmpty()) {
            throw new IllegalArgumentException("customer id must not be empty");
        }
        if (!(multiplier > 0) || Double.isInfinite(multiplier)) {
            throw new IllegalArgumentException("multiplier must be > 0 but was " + multiplier);
        }
        this.id = id;
        this.plan = plan;
        this.multiplier = multiplier;
        this.kind = kind;
    }

    /**
     * A configured customer ({@link Kind#ACCOUNT}) on {@code plan} with the plan's limits as they are
     * (multiplier 1).
     *
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code id} is empty
     */
    public static Customer of(String id, String plan) {
        return new Customer(id, plan, 1.0, Kind.ACCOUNT);
    }

    /**
     * A configured customer ({@link Kind#ACCOUNT}) on {@code plan} with every capacity and refill
     * scaled by {@code multiplier}: 2.0 on a plan of 100 per minute gives 200 per minute.
     *
     * @throws NullPointerException if {@code id} or {@code plan} is null
     * @throws IllegalArgumentException if {@code id} is empty or {@code multiplier} is not a finite
     *     number {@code > 0}
     */
    public static Customer of(String id, String plan, double multiplier) {
        return new Customer(id, plan, multiplier, Kind.ACCOUNT);
    }

    /**
     * A builder for a customer {@code id} on {@code plan}: multiplier 1 and kind {@link Kind#ACCOUNT}
     * until set. The arguments are checked in {@link Builder#build()}.
     */
    public static Builder builder(String id, String plan) {
        return new Builder(id, plan);
    }

    /** The stable identity buckets are keyed by; any string, it is hashed into keys. */
    public String id() {
        return id;
    }

    /** The plan name. */
    public String plan() {
        return plan;
    }

    /** Scales every capacity and refill of the plan (2.0 = twice the tier), {@code > 0}; default 1. */
    public double multiplier() {
        return multiplier;
    }

    /** Which namespace the id belongs to; default {@link Kind#ACCOUNT}. */
    public Kind kind() {
        return kind;
    }

    /**
     * This customer on another plan, same id, multiplier and kind.
     *
     * @throws NullPointerException if {@code newPlan} is null
     */
    public Customer withPlan(String newPlan) {
        return new Customer(id, newPlan, multiplier, kind);
    }

    @Override
    public boolean equals(@Nullable Object o) {
        return o instanceof Customer other && id.equals(other.id) && plan.equals(other.plan)
                && Double.compare(multiplier, other.multiplier) == 0 && kind == other.kind;
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, plan, multiplier, kind);
    }

    @Override
    public String toString() {
        return "Customer[id=" + id + ", plan=" + plan + ", multiplier=" + multiplier + ", kind=" + kind + "]";
    }

    /** Collects a customer's settings; {@link #build()} checks them. */
    public static final class Builder {
        private final String id;
        private final String plan;
        private double multiplier = 1.0;
        private Kind kind = Kind.ACCOUNT;

        private Builder(String id, String plan) {
            this.id = id;
            this.plan = plan;
        }

        /** Scales every capacity and refill of the plan; default 1 (checked in {@link #build()}). */
        public Builder multiplier(double multiplier) {
            this.multiplier = multiplier;
            return this;
        }

        /**
         * Which namespace the id belongs to; default {@link Kind#ACCOUNT}.
         *
         * @throws NullPointerException if {@code kind} is null
         */
        public Builder kind(Kind kind) {
            this.kind = Objects.requireNonNull(kind, "kind");
            return this;
        }

        /**
         * The customer.
         *
         * @throws NullPointerException if the id or plan is null
         * @throws IllegalArgumentException if the id is empty or the multiplier is not a finite
         *     number {@code > 0}
         */
        public Customer build() {
            return new Customer(id, plan, multiplier, kind);
        }
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
