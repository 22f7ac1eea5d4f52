package dev.quota.core;

/**
 * What a decision does while the shared store is down: only during an
 * {@link QuotaStoreException#outage() established outage} (a
 * {@link dev.quota.core.resilience.CircuitBreakerStore} open and its health check failing). A call
 * that fails while the store is not known to be down (a timeout on a busy machine, a lost race) is
 * refused with 503 and {@code Retry-After} under every policy, so a slow store never admits a
 * request beside the count the other instances share. Every decision the policy answers says so in
 * {@link QuotaDecision#fallback()}.
 */
public enum FailurePolicy {
    /** Admit the request and mark the decision as not enforced. */
    OPEN,
    /** Reject the request: the HTTP layer answers 503 with {@code Retry-After}. */
    CLOSED,
    /**
     * Enforce in-JVM buckets whose limits are divided by the number of live instances, so the
     * fleet as a whole stays close to the limit while the store is unavailable.
     */
    LOCAL
}
