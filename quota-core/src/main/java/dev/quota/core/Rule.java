package dev.quota.core;

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
 * @param name           the rule name, referenced by {@code @Quota("name")} and in policy names
 * @param matches        the {@code "METHOD /path/{template}"} entries this rule applies to (may be
 *                       empty when the rule is bound by annotation only)
 * @param cost           tokens taken from each plan limit per request, {@code >= 1}; the rule's own
 *                       limits count one per request
 * @param perCustomer    limits each customer gets on this endpoint
 * @param shared         limits all customers share on this endpoint
 * @param onStoreFailure what to do when the store is unavailable, or null to use the plan's policy
 * @param mode           whether the rule's own limits (per customer and shared) reject, or null
 *                       (the default) to follow the config's global {@link QuotaConfig#mode()}; the
 *                       rule's cost taken from the plan limits follows the plan's mode
 * @param concurrency    how many requests of one customer may run at once on this rule's endpoints,
 *                       or null (the default) for no such limit
 */
public record Rule(String name, List<RouteMatch> matches, long cost, List<Limit> perCustomer, List<Limit> shared,
                   @Nullable FailurePolicy onStoreFailure, @Nullable Mode mode, @Nullable Concurrency concurrency) {

    /** @throws IllegalArgumentException if the name is malformed, {@code cost < 1} or limit names repeat
     *     across per-customer and shared limits */
    public Rule {
        Limit.requireName(name, "rule name");
        matches = List.copyOf(matches);
        if (cost < 1) {
            throw new IllegalArgumentException("cost must be >= 1 but was " + cost);
        }
        perCustomer = List.copyOf(perCustomer);
        shared = List.copyOf(shared);
        var all = new java.util.ArrayList<Limit>(perCustomer);
        all.addAll(shared);
        Plan.requireUniqueNames(all, "rule " + name);
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

    /** A rule that follows the global mode. */
    public Rule(String name, List<RouteMatch> matches, long cost, List<Limit> perCustomer, List<Limit> shared,
                @Nullable FailurePolicy onStoreFailure) {
        this(name, matches, cost, perCustomer, shared, onStoreFailure, null, null);
    }

    /** A rule without an in-flight limit. */
    public Rule(String name, List<RouteMatch> matches, long cost, List<Limit> perCustomer, List<Limit> shared,
                @Nullable FailurePolicy onStoreFailure, @Nullable Mode mode) {
        this(name, matches, cost, perCustomer, shared, onStoreFailure, mode, null);
    }

    /** This rule with at most {@code concurrency} requests of a customer running at once. */
    public Rule withConcurrency(@Nullable Concurrency concurrency) {
        return new Rule(name, matches, cost, perCustomer, shared, onStoreFailure, mode, concurrency);
    }
}
