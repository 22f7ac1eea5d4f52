package dev.quota.core.internal.lease;

import dev.quota.core.Leasing;
import org.jspecify.annotations.Nullable;

/**
 * One bucket of a decision as {@link LeasedShares} asks it: whether a batch of it may be leased,
 * and under which policy name its leased tokens are reported. The decision engine's draws answer
 * it, one per take, in take order; the rule of which buckets may be leased is theirs.
 */
public interface LeaseCandidate {

    /**
     * The policy name the bucket's leased tokens are reported under (its first limit's), when
     * {@code leasing} lets the bucket be leased; null when it may not be.
     */
    @Nullable String leasedPolicy(Leasing leasing);
}
