/**
 * The Redis backend: {@link dev.quota.redis.RedisStore} (Bucket4j compare-and-swap buckets
 * over Redisson, standalone, Sentinel or Cluster), the {@link dev.quota.redis.RedisTimeClock}
 * that makes every instance refill by Redis' clock, and the
 * {@link dev.quota.redis.InstanceRegistry} that counts live instances for the local failure
 * policy. Nothing here is null unless marked {@code @Nullable}.
 */
@NullMarked
package dev.quota.redis;

import org.jspecify.annotations.NullMarked;
