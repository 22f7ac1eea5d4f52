/**
 * Keeping decisions fast and the limits meaningful while the shared store is in trouble:
 * {@link dev.quota.core.resilience.CircuitBreakerStore} stops calling a store that keeps failing, so
 * the failure policy of {@link dev.quota.core.QuotaService} answers at once instead of after a
 * timeout per request. Nothing here is null unless marked {@code @Nullable}.
 */
@NullMarked
package dev.quota.core.resilience;

import org.jspecify.annotations.NullMarked;
