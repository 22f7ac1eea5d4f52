package dev.quota.core;

import java.util.List;
import java.util.Objects;

/**
 * Limits on an amount rather than on requests, such as money moved per day.
 *
 * <p>A {@code transfer-amount} set with a calendar-day limit of 1,000,000 (minor units) lets each
 * customer move at most 10,000.00 per currency per day; the resource consumes the amount once the
 * body is parsed, through {@link QuotaService#consumeAmount}. Each currency (or other qualifier)
 * has its own buckets.
 *
 * @param name           referenced by the programmatic API
 * @param limits         at least one limit, unique names, in the amount's own unit
 * @param onStoreFailure what to do when the store is unavailable
 */
public record AmountLimits(String name, List<Limit> limits, FailurePolicy onStoreFailure) {

    /** @throws IllegalArgumentException if the name is malformed, limits are empty or names repeat */
    public AmountLimits {
        Limit.requireName(name, "amount limits name");
        limits = List.copyOf(limits);
        if (limits.isEmpty()) {
            throw new IllegalArgumentException("amount limits " + name + " must have at least one limit");
        }
        Plan.requireUniqueNames(limits, "amount limits " + name);
        Objects.requireNonNull(onStoreFailure, "onStoreFailure");
    }
}
