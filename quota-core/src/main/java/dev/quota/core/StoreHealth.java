package dev.quota.core;

import dev.quota.core.resilience.CircuitBreakerStore;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The shared store as this instance sees it now, for an operator ({@link QuotaAdmin#store()}, the
 * admin view): what it is, its circuit breaker's state, whether an outage is established (the
 * failure policies answer), and how many decisions it did not make since the service started.
 *
 * @param store             the store's description
 * @param breaker           the breaker's state, or null when the store is not behind a
 *                          {@link CircuitBreakerStore}
 * @param outage            whether an outage is established: the breaker is open and its health
 *                          check failed ({@link CircuitBreakerStore#outage()})
 * @param fallbackDecisions decisions made instead of the store since start, by who made them
 *                          (every kind present, zero included)
 */
public record StoreHealth(String store, CircuitBreakerStore.@Nullable State breaker, boolean outage,
                          Map<QuotaDecision.Fallback.Kind, Long> fallbackDecisions) {

    /** @throws NullPointerException if store or fallbackDecisions is null */
    public StoreHealth {
        Objects.requireNonNull(store, "store");
        EnumMap<QuotaDecision.Fallback.Kind, Long> all = new EnumMap<>(QuotaDecision.Fallback.Kind.class);
        for (QuotaDecision.Fallback.Kind kind : QuotaDecision.Fallback.Kind.values()) {
            all.put(kind, fallbackDecisions.getOrDefault(kind, 0L));
        }
        fallbackDecisions = Map.copyOf(all);
    }
}
