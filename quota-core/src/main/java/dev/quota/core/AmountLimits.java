package dev.quota.core;

import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Limits on an amount rather than on requests, such as money moved per day.
 *
 * <p>A {@code transfer-amount} set with a calendar-day limit of 1,000,000 (minor units) lets each
 * customer move at most 10,000.00 per currency per day; the resource consumes the amount once the
 * body is parsed, through {@link QuotaService#consumeAmount}. Each currency (or other qualifier)
 * has its own buckets.
 *
 * <p>A value: equal when name, limits and failure policy are. Made by
 * {@link #of(String, List, FailurePolicy)} or read from the {@code amounts:} section of the config
 * file; a setting added in a later release gets a default (and a builder), so code that makes one
 * keeps compiling.
 */
public final class AmountLimits {

    private final String name;
    private final List<Limit> limits;
    private final FailurePolicy onStoreFailure;

    private AmountLimits(String name, List<Limit> limits, FailurePolicy onStoreFailure) {
        Limit.requireName(name, "amount limits name");
        this.name = name;
        this.limits = Plan.requireLimits(limits, "amount limits " + name);
        this.onStoreFailure = Objects.requireNonNull(onStoreFailure, "onStoreFailure");
    }

    /**
     * Amount limits {@code name} of {@code limits}, in the amount's own unit.
     *
     * @throws NullPointerException if an argument or one of the limits is null
     * @throws IllegalArgumentException if the name is malformed, limits are empty or names repeat
     */
    public static AmountLimits of(String name, List<Limit> limits, FailurePolicy onStoreFailure) {
        return new AmountLimits(name, limits, onStoreFailure);
    }

    /** The name the programmatic API refers to. */
    public String name() {
        return name;
    }

    /** At least one limit, unique names, in the amount's own unit. */
    public List<Limit> limits() {
        return limits;
    }

    /** What to do when the store is unavailable. */
    public FailurePolicy onStoreFailure() {
        return onStoreFailure;
    }

    @Override
    public boolean equals(@Nullable Object o) {
        return o instanceof AmountLimits other && name.equals(other.name) && limits.equals(other.limits)
                && onStoreFailure == other.onStoreFailure;
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, limits, onStoreFailure);
    }

    @Override
    public String toString() {
        return "AmountLimits[name=" + name + ", limits=" + limits + ", onStoreFailure=" + onStoreFailure + "]";
    }
}
