package dev.quota.core.internal.identity;

import dev.quota.core.QuotaConfig;
import dev.quota.core.QuotaDecision;
import org.jspecify.annotations.Nullable;

/**
 * The failed-key counts of client address groups, one bucket per group in the store: what
 * {@link FailedKeyGuard} asks of the store. The decision engine in {@code dev.quota.core} answers it,
 * as it lays out and decides every other bucket.
 */
public interface FailedKeyCounts {

    /**
     * Counts one failed lookup of {@code group}: in the shared store while it answers, and in this
     * JVM, on this instance's share of the limit, whenever it does not (a slow or timed-out call, a
     * breaker open or half-open, an outage). So the limit holds in every phase of a store failure.
     *
     * @return the count's decision: REJECTED once the group has guessed too often
     */
    QuotaDecision count(QuotaConfig config, String group);

    /**
     * The group's count in the shared store, read without counting: a REJECTED decision when it has
     * no token left, its retry-after the time until it has one (to the nanosecond, from the bucket's
     * time to full); ALLOWED when it has one.
     *
     * @return null when the count is not read: it is in shadow mode, or the store cannot answer
     */
    @Nullable QuotaDecision exhausted(QuotaConfig config, String group);
}
