/**
 * Quotas in a Jakarta EE application from configuration alone: with {@code quota-cdi} in the WAR,
 * a CDI extension ({@link dev.quota.cdi.QuotaExtension}) builds the
 * {@link dev.quota.core.QuotaService} from the settings ({@link dev.quota.cdi.QuotaSettings}) when
 * the application starts and closes it when it stops, and a Jakarta REST provider
 * ({@link dev.quota.cdi.QuotaProviders}) enforces it on every resource method. Resources may
 * {@code @Inject QuotaService} and the request's {@link dev.quota.cdi.QuotaRequest}; an application
 * that keeps customers in its own database produces a {@link dev.quota.core.spi.CustomerDirectory}.
 * Nothing here is null unless marked {@code @Nullable}.
 */
@NullMarked
package dev.quota.cdi;

import org.jspecify.annotations.NullMarked;
