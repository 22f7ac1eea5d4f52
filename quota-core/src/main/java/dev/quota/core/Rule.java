package dev.quota.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Extra limits for one endpoint (or group of endpoints), layered on the caller's plan.
 *
 * <p>An export rule with cost 10 takes 10 tokens from each of the plan's limits. A transfers rule
 * with a per-customer limit of 10 per minute and a shared limit of 500 per second admits a
 * transfer only if the customer's plan, the customer's transfer bucket and the endpoint-wide
 * bucket all have tokens.
 *
 * <p>A value: equal when every setting is. Made by {@link #builder(String)} (every setting but the
 * name at its default until set) or read from the {@code rules:} section of the config file; a
 * setting added in a later release gets a default and a builder method, so code that makes one
 * keeps compiling.
 */
public final class Rule {

    private final String name;
    private final List<RouteMatch> matches;
    private final long cost;
    private final List<Limit> perCustomer;
    private final List<Limit> shared;
    private final @Nullable FailurePolicy onStoreFailure;
    private final @Nullable Mode mode;
    private final @Nullable Concurrency concurrency;

    private Rule(Builder b) {
        Limit.requireName(b.name, "rule name");
        if (b.cost < 1) {
            throw new IllegalArgumentException("cost must be >= 1 but was " + b.cost);
        }
        this.name = b.name;
        this.matches = List.copyOf(b.matches);
        this.cost = b.cost;
        this.perCustomer = List.copyOf(b.perCustomer);
        this.shared = List.copyOf(b.shared);
        var all = new ArrayList<Limit>(perCustomer);
        all.addAll(shared);
        Plan.requireUniqueNames(all, "rule " + name);
        this.onStoreFailure = b.onStoreFailure;
        this.mode = b.mode;
        this.concurrency = b.concurrency;
    }

    /**
     * A builder for rule {@code name}: bound by annotation only (no route entries), cost 1, no limits
     * of its own, the plan's failure policy, the global mode and no in-flight limit until set. The
     * settings are checked in {@link Builder#build()}.
     */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /** A builder holding this rule's settings, to change some of them. */
    public Builder toBuilder() {
        return new Builder(name).matches(matches).cost(cost).perCustomer(perCustomer).shared(shared)
                .onStoreFailure(onStoreFailure).mode(mode).concurrency(concurrency);
    }

    /** The rule name, referenced by {@code @Quota("name")} and in policy names. */
    public String name() {
        return name;
    }

    /**
     * The {@code "METHOD /path/{template}"} entries this rule applies to; empty (the default) when
     * the rule is bound by annotation only.
     */
    public List<RouteMatch> matches() {
        return matches;
    }

    /**
     * Tokens taken from each plan limit per request, {@code >= 1}, default 1; the rule's own limits
     * count one per request.
     */
    public long cost() {
        return cost;
    }

    /** Limits each customer gets on this endpoint; default none. */
    public List<Limit> perCustomer() {
        return perCustomer;
    }

    /** Limits all customers share on this endpoint; default none. */
    public List<Limit> shared() {
        return shared;
    }

    /** What to do when the store is unavailable, or null (the default) to use the plan's policy. */
    public @Nullable FailurePolicy onStoreFailure() {
        return onStoreFailure;
    }

    /**
     * Whether the rule's own limits (per customer and shared) reject, or null (the default) to follow
     * the config's global {@link QuotaConfig#mode()}; the rule's cost taken from the plan limits
     * follows the plan's mode.
     */
    public @Nullable Mode mode() {
        return mode;
    }

    /**
     * How many requests of one customer may run at once on this rule's endpoints, or null (the
     * default) for no such limit.
     */
    public @Nullable Concurrency concurrency() {
        return concurrency;
    }

    /** Whether one of this rule's entries names {@code method} and a template of shape {@code shape}. */
    public boolean matches(String method, String shape) {
        for (RouteMatch match : matches) {
            if (match.matches(method, shape)) {
                return true;
            }
        }
        return false;
    }

    /** This rule with at most {@code concurrency} requests of a customer running at once (null: no such limit). */
    public Rule withConcurrency(@Nullable Concurrency concurrency) {
        return toBuilder().concurrency(concurrency).build();
    }

    @Override
    public boolean equals(@Nullable Object o) {
        return o instanceof Rule other && name.equals(other.name) && matches.equals(other.matches)
                && cost == other.cost && perCustomer.equals(other.perCustomer) && shared.equals(other.shared)
                && onStoreFailure == other.onStoreFailure && mode == other.mode
                && Objects.equals(concurrency, other.concurrency);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, matches, cost, perCustomer, shared, onStoreFailure, mode, concurrency);
    }

    @Override
    public String toString() {
        return "Rule[name=" + name + ", matches=" + matches + ", cost=" + cost + ", perCustomer=" + perCustomer
                + ", shared=" + shared + ", onStoreFailure=" + onStoreFailure + ", mode=" + mode
                + ", concurrency=" + concurrency + "]";
    }

    /** Collects a rule's settings; {@link #build()} checks them together, so their order does not matter. */
    public static final class Builder {
        private final String name;
        private List<RouteMatch> matches = List.of();
        private long cost = 1;
        private List<Limit> perCustomer = List.of();
        private List<Limit> shared = List.of();
        private @Nullable FailurePolicy onStoreFailure;
        private @Nullable Mode mode;
        private @Nullable Concurrency concurrency;

        private Builder(String name) {
            this.name = name;
        }

        /**
         * The {@code "METHOD /path/{template}"} entries the rule applies to; default none (bound by
         * annotation only).
         *
         * @throws NullPointerException if {@code matches} is null
         */
        public Builder matches(List<RouteMatch> matches) {
            this.matches = Objects.requireNonNull(matches, "matches");
            return this;
        }

        /** Tokens taken from each plan limit per request; default 1 ({@code >= 1}, checked in {@link #build()}). */
        public Builder cost(long cost) {
            this.cost = cost;
            return this;
        }

        /**
         * Limits each customer gets on the rule's endpoints; default none.
         *
         * @throws NullPointerException if {@code perCustomer} is null
         */
        public Builder perCustomer(List<Limit> perCustomer) {
            this.perCustomer = Objects.requireNonNull(perCustomer, "perCustomer");
            return this;
        }

        /**
         * Limits all customers share on the rule's endpoints; default none.
         *
         * @throws NullPointerException if {@code shared} is null
         */
        public Builder shared(List<Limit> shared) {
            this.shared = Objects.requireNonNull(shared, "shared");
            return this;
        }

        /** What to do when the store is unavailable; default null: the plan's policy. */
        public Builder onStoreFailure(@Nullable FailurePolicy onStoreFailure) {
            this.onStoreFailure = onStoreFailure;
            return this;
        }

        /** Whether the rule's own limits reject; default null: the config's global {@link QuotaConfig#mode()}. */
        public Builder mode(@Nullable Mode mode) {
            this.mode = mode;
            return this;
        }

        /** How many requests of one customer may run at once on the rule's endpoints; default null: no such limit. */
        public Builder concurrency(@Nullable Concurrency concurrency) {
            this.concurrency = concurrency;
            return this;
        }

        /**
         * The rule.
         *
         * @throws NullPointerException if the name, a route entry or a limit is null
         * @throws IllegalArgumentException if the name is malformed, {@code cost < 1} or limit names
         *     repeat across per-customer and shared limits
         */
        public Rule build() {
            return new Rule(this);
        }
    }
}
