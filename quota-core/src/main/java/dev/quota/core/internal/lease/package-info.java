/**
 * Leased shares of hot buckets ({@link dev.quota.core.TokenLeasing}): the batches of tokens this
 * instance takes from a busy bucket in the shared store and serves decisions from without a store
 * call. {@link dev.quota.core.internal.lease.LeasedShares} is the one seam a decision passes
 * through; each bucket's batch and demand is a {@code HotBucket}. Public only so that the decision
 * engine in {@code dev.quota.core} can wire and call it; nothing here is API, and any of it may
 * change in any release.
 */
@NullMarked
package dev.quota.core.internal.lease;

import org.jspecify.annotations.NullMarked;
