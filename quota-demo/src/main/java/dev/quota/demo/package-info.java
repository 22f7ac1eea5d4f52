/**
 * A bank-style API on Jersey and Jetty that shows the quota library end to end: accounts,
 * exports that cost 10 requests, transfers with a per-customer rate and a daily amount per
 * currency, the caller's standing, and every error as problem+json; for operators, Prometheus
 * metrics at {@code /metrics} on a management listener bound to 127.0.0.1, the admin API at
 * {@code /admin}, hot reload of the config file and a circuit breaker in front of Redis. {@link dev.quota.demo.Main} runs one or more instances over
 * one Redis. Nothing here is null unless marked {@code @Nullable}.
 */
@NullMarked
package dev.quota.demo;

import org.jspecify.annotations.NullMarked;
