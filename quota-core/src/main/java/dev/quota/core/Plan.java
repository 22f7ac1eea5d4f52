package dev.quota.core;

import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A tier (free, pro, enterprise): the limits every customer of the tier gets, enforced together.
 *
 * <p>A free plan with {@code burst} 20 (10/s refill) and {@code daily} 1000 (calendar day): a
 * request passes only if both buckets have a token.
 *
 * <p>A value: equal when every setting is. Made by {@link #of(String, List, FailurePolicy)} or
 * {@link #builder(String)}, or read from the {@code plans:} section of the config file; a setting
 * added in a later release gets a default and a builder method, so code that makes one keeps
 * compiling.
 */
public final class Plan {

    private final String name;
    private final List<Limit> limits;
    private final FailurePolicy onStoreFailure;
    private final @Nullable Mode mode;
    private final @Nullable Concurrency concurrency;

    private Plan(String name, List<Limit> limits, FailurePolicy onStoreFailure, @Nullable Mode mode,
                 @Nullable Concurrency concurrency) {
        Limit.requireName(name, "plan name");
        this.name = name;
        this.limits = requireLimits(limits, "plan " + name);
        this.onStoreFailure = Objects.requireNonNull(onStoreFailure, "onStoreFailure");
        this.mode = mode;
        this.concurrency = concurrency;
    }

    /**
     * A plan of {@code limits} that follows the config's global mode and has no in-flight limit.
     *
     * @throws NullPointerException if an argument or one of the limits is null
     * @throws IllegalArgumentException if the name is malformed, limits are empty or names repeat
     */
    public static Plan of(String name, List<Limit> limits, FailurePolicy onStoreFailure) {
        return new Plan(name, limits, onStoreFailure, null, null);
    }

    /**
     * A builder for plan {@code name}: no limits (at least one must be set), failure policy
     * {@link FailurePolicy#LOCAL} (as in the config file), the global mode and no in-flight limit
     * until set. The settings are checked in {@link Builder#build()}.
     */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /** A builder holding this plan's settings, to change some of them. */
    public Builder toBuilder() {
        return new Builder(name).limits(limits).onStoreFailure(onStoreFailure).mode(mode).concurrency(concurrency);
    }

    /** The tier name, used in policy names such as {@code free-burst}. */
    public String name() {
        return name;
    }

    /** At least one limit, unique names. */
    public List<Limit> limits() {
        return limits;
    }

    /** What to do when the store is unavailable. */
    public FailurePolicy onStoreFailure() {
        return onStoreFailure;
    }

    /**
     * Whether the plan's limits reject, or null (the default) to follow the config's global
     * {@link QuotaConfig#mode()}.
     */
    public @Nullable Mode mode() {
        return mode;
    }

    /**
     * How many requests of one customer may run at once, or null (the default) for no such limit.
     */
    public @Nullable Concurrency concurrency() {
        return concurrency;
    }

    /** This plan with at most {@code concurrency} requests of a customer running at once (null: no such limit). */
    public Plan withConcurrency(@Nullable Concurrency concurrency) {
        return toBuilder().concurrency(concurrency).build();
    }

    /**
     * A copy of {@code limits}, which {@code owner} (a plan, a set of amount limits) holds: at least
     * one, unique names.
     *
     * @throws IllegalArgumentException if there is none or names repeat
     */
    static List<Limit> requireLimits(List<Limit> limits, String owner) {
        List<Limit> copy = List.copyOf(limits);
        if (copy.isEmpty()) {
            throw new IllegalArgumentException(owner + " must have at least one limit");
        }
        requireUniqueNames(copy, owner);
        return copy;
    }

    static void requireUniqueNames(List<Limit> limits, String owner) {
        var seen = new HashSet<String>();
        for (Limit limit : limits) {
            if (!seen.add(limit.name())) {
                throw new IllegalArgumentException(owner + " has two limits named " + limit.name());
            }
        }
    }

    @Override
    public boolean equals(@Nullable Object o) {
        return o instanceof Plan other && name.equals(other.name) && limits.equals(other.limits)
                && onStoreFailure == other.onStoreFailure && mode == other.mode
                && Objects.equals(concurrency, other.concurrency);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, limits, onStoreFailure, mode, concurrency);
    }

    @Override
    public String toString() {
        return "Plan[name=" + name + ", limits=" + limits + ", onStoreFailure=" + onStoreFailure + ", mode=" + mode
                + ", concurrency=" + concurrency + "]";
    }

    /** Collects a plan's settings; {@link #build()} checks them together. */
    public static final class Builder {
        private final String name;
        private List<Limit> limits = List.of();
        private FailurePolicy onStoreFailure = FailurePolicy.LOCAL;
        private @Nullable Mode mode;
        private @Nullable Concurrency concurrency;

        private Builder(String name) {
            this.name = name;
        }

        /**
         * The plan's limits, at least one, unique names (checked in {@link #build()}); default none.
         *
         * @throws NullPointerException if {@code limits} is null
         */
        public Builder limits(List<Limit> limits) {
            this.limits = Objects.requireNonNull(limits, "limits");
            return this;
        }

        /**
         * What to do when the store is unavailable; default {@link FailurePolicy#LOCAL}.
         *
         * @throws NullPointerException if {@code onStoreFailure} is null
         */
        public Builder onStoreFailure(FailurePolicy onStoreFailure) {
            this.onStoreFailure = Objects.requireNonNull(onStoreFailure, "onStoreFailure");
            return this;
        }

        /** Whether the plan's limits reject; default null: the config's global {@link QuotaConfig#mode()}. */
        public Builder mode(@Nullable Mode mode) {
            this.mode = mode;
            return this;
        }

        /** How many requests of one customer may run at once; default null: no such limit. */
        public Builder concurrency(@Nullable Concurrency concurrency) {
            this.concurrency = concurrency;
            return this;
        }

        /**
         * The plan.
         *
         * @throws NullPointerException if the name or one of the limits is null
         * @throws IllegalArgumentException if the name is malformed, limits are empty or names repeat
         */
        public Plan build() {
            return new Plan(name, limits, onStoreFailure, mode, concurrency);
        }
    }
}
