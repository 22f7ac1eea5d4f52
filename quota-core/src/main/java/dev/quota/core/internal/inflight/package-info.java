/**
 * In-flight leases ({@link dev.quota.core.Concurrency}) given back off the thread that ends the
 * response, several requests' leases in one store call
 * ({@link dev.quota.core.internal.inflight.LeaseReturns}, behind
 * {@link dev.quota.core.QuotaService#releaseLater}). Public only so that the service can call it;
 * nothing here is API, and any of it may change in any release.
 */
@NullMarked
package dev.quota.core.internal.inflight;

import org.jspecify.annotations.NullMarked;
