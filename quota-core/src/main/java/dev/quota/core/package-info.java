/**
 * The limiter's public API: plans and limits as values, {@link dev.quota.core.QuotaService} to
 * decide, and {@link dev.quota.core.QuotaDecision} as the answer. Nothing here is null unless
 * marked {@code @Nullable}.
 */
@NullMarked
package dev.quota.core;

import org.jspecify.annotations.NullMarked;
