/**
 * The admin API: {@link dev.quota.jaxrs.admin.QuotaAdminResource}, an operator's view of the
 * limiter at {@code /admin} (a customer's standing, resetting its buckets, releasing its in-flight
 * leases, the active config, the top customers), protected by a bearer token that
 * {@link dev.quota.jaxrs.admin.AdminTokens} checks for strength. Register it next to a
 * {@link dev.quota.jaxrs.QuotaFeature}, which runs its token check; this package uses
 * {@code dev.quota.jaxrs}, never the reverse. Nothing here is null unless marked {@code @Nullable}.
 */
@NullMarked
package dev.quota.jaxrs.admin;

import org.jspecify.annotations.NullMarked;
