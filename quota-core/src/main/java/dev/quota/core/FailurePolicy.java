package dev.quota.core;

/**
 * What a decision does when the shared store cannot answer in time (Redis down, slow, failing over).
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
