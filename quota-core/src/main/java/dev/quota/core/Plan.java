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
 * @param name            the tier name, used in policy names such as {@code free-burst}
 * @param limits          at least one limit, unique names
 * @param onStoreFailure  what to do when the store is unavailable
 * @param mode            whether the plan's limits reject, or null (the default) to follow the
 *                        config's global {@link QuotaConfig#mode()}
 * @param concurrency     how many requests of one customer may run at once, or null (the default)
 *                        for no such limit
 */
public record Plan(String name, List<Limit> limits, FailurePolicy onStoreFailure, @Nullable Mode mode,
                   @Nullable Concurrency concurrency) {

    /** @throws IllegalArgumentException if the name is malformed, limits are empty or names repeat */
    public Plan {
        Limit.requireName(name, "plan name");
        limits = List.copyOf(limits);
        if (limits.isEmpty()) {
            throw new IllegalArgumentException("plan " + name + " must have at least one limit");
        }
        requireUniqueNames(limits, "plan " + name);
        Objects.requireNonNull(onStoreFailure, "onStoreFailure");
    }

    /** A plan that follows the global mode. */
    public Plan(String name, List<Limit> limits, FailurePolicy onStoreFailure) {
        this(name, limits, onStoreFailure, null, null);
    }

    /** A plan without an in-flight limit. */
    public Plan(String name, List<Limit> limits, FailurePolicy onStoreFailure, @Nullable Mode mode) {
        this(name, limits, onStoreFailure, mode, null);
    }

    /** This plan with at most {@code concurrency} requests of a customer running at once. */
    public Plan withConcurrency(@Nullable Concurrency concurrency) {
        return new Plan(name, limits, onStoreFailure, mode, concurrency);
    }

    static void requireUniqueNames(List<Limit> limits, String owner) {
        var seen = new HashSet<String>();
        for (Limit limit : limits) {
            if (!seen.add(limit.name())) {
                throw new IllegalArgumentException(owner + " has two limits named " + limit.name());
            }
        }
    }
}
