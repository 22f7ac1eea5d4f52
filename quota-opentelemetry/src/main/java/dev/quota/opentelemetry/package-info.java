/**
 * OpenTelemetry metrics and span attributes for the limiter, on the OpenTelemetry API alone (the
 * application's SDK exports them): register a {@link dev.quota.opentelemetry.OpenTelemetryQuotaListener}
 * with {@code QuotaService.builder().listener(...)} and {@code observe} the built service. The
 * instruments, attributes and their Prometheus names are in docs/opentelemetry.md. Nothing here is
 * null unless marked {@code @Nullable}.
 */
@NullMarked
package dev.quota.opentelemetry;

import org.jspecify.annotations.NullMarked;
