/**
 * Micrometer metrics for the limiter: register a {@link dev.quota.micrometer.MicrometerQuotaListener}
 * with {@code QuotaService.builder().listener(...)}, and, once the service is built,
 * {@link dev.quota.micrometer.TopCustomerGauges#register} for who is being limited. The meters, their
 * tags and their Prometheus names are listed on those classes; {@code docs/grafana-dashboard.json}
 * charts them. Nothing here is
 * null unless marked {@code @Nullable}.
 */
@NullMarked
package dev.quota.micrometer;

import org.jspecify.annotations.NullMarked;
