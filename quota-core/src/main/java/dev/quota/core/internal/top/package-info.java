/**
 * The counts behind {@link dev.quota.core.TopCustomers}: {@link dev.quota.core.internal.top.TopCustomerCounts}
 * ranks customers by refusals and by plan tokens spent over a sliding window, in the bounded,
 * striped sketch {@code HeavyHitters}. Public only so that {@link dev.quota.core.QuotaService} can
 * feed it; nothing here is API, and any of it may change in any release.
 */
@NullMarked
package dev.quota.core.internal.top;

import org.jspecify.annotations.NullMarked;
