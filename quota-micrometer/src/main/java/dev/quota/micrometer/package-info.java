/**
 * Micrometer metrics for the limiter: register a {@link dev.quota.micrometer.MicrometerQuotaListener}
 * with {@code QuotaService.builder().listener(...)}. The meters, their tags and their Prometheus
 * names are listed on that class; {@code docs/grafana-dashboard.json} charts them. Nothing here is
 * null unless marked {@code @Nullable}.
 */
@NullMarked
package dev.quota.micrometer;

import org.jspecify.annotations.NullMarked;
