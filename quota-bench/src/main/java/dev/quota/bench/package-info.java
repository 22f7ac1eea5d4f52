/**
 * The benchmark harness: scenarios that run this module's store and three baselines (a Lua token
 * bucket, Redisson's RRateLimiter, untuned Bucket4j) against one redis-server, counting throughput,
 * latency, Redis commands and exactness, and the report and chart they produce. Run by
 * {@link dev.quota.bench.BenchMain}, never by the test build.
 */
@NullMarked
package dev.quota.bench;

import org.jspecify.annotations.NullMarked;
