/**
 * The limiter's public API: plans and limits as values, {@link dev.quota.core.QuotaService} to
 * decide, and {@link dev.quota.core.QuotaDecision} as the answer. Nothing here is null unless
 * marked {@code @Nullable}.
 *
 * <p>Besides the API, this package holds the decision engine, package-private, because it writes
 * and reads what the API types keep from their users: a {@link dev.quota.core.Receipt}'s takes,
 * leases and settle state, a decision's fallback, a limit status made to the nanosecond. Those are
 * {@code DecisionRunner} (one store call per decision, the failure policy, the receipt) with the
 * {@code RunnerWiring} it is made from, {@code BucketLayout} and {@code Draw} (which buckets a request
 * touches, and how each limit's status is read), {@code DecisionCharge} (what each bucket is
 * charged), {@code LocalShare} (this instance's part of the limits during an outage),
 * {@code BodyDecision} (a decision in two steps) and {@code FailedKeyBuckets} (the failed-key counts
 * as such buckets). The rest of the implementation lives in {@code dev.quota.core.internal} and its
 * subpackages, each a concern of its own: {@code identity}, {@code lease}, {@code inflight},
 * {@code report} and {@code top}.
 */
@NullMarked
package dev.quota.core;

import org.jspecify.annotations.NullMarked;
