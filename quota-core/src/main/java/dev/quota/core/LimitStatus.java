package dev.quota.core;

import dev.quota.core.internal.WholeSeconds;
import java.time.Duration;

/**
 * Where one limit stands for one caller after a decision.
 *
 * @param policy     the policy name as it appears in {@code RateLimit-Policy}: {@code <plan>-<limit>}
 *                   for plan limits, {@code <rule>-<limit>} for rule limits, {@code <amounts>-<limit>}
 *                   for amount limits
 * @param limit      the limit as enforced for this caller (overrides applied)
 * @param remaining  tokens left after this decision
 * @param resetAfter time until the bucket is full again (zero when it is full)
 * @param retryAfter time until the request that was just decided could pass on this limit alone
 *                   (zero when this limit has enough tokens)
 * @param requests   true when the limit counts requests; false for amount limits, which stay out of
 *                   the {@code RateLimit} headers
 * @param shared     true for a rule's limit that every customer shares: its remaining tokens tell of
 *                   other customers' activity, so it stays out of the {@code RateLimit} headers
 */
public record LimitStatus(String policy, Limit limit, long remaining, Duration resetAfter, Duration retryAfter,
                          boolean requests, boolean shared) {

    /** A status of a customer's own limit. */
    public LimitStatus(String policy, Limit limit, long remaining, Duration resetAfter, Duration retryAfter,
                       boolean requests) {
        this(policy, limit, remaining, resetAfter, retryAfter, requests, false);
    }

    /**
     * {@link #resetAfter} in whole seconds rounded up, as clients are told it: 0 when full, 1 for
     * 0.2 s, 60 for exactly a minute.
     */
    public long resetSeconds() {
        return WholeSeconds.ceil(resetAfter);
    }

    /** Whether this limit lacked tokens for the decided request. */
    public boolean exhausted() {
        return !retryAfter.isZero();
    }

    /** Whether this status belongs in the {@code RateLimit} headers the caller sees: its own request limits. */
    public boolean advertised() {
        return requests && !shared;
    }
}
