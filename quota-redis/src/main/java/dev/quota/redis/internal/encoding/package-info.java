/**
 * What is stored in Redis and the scripts that read and write it: the compare-and-swap script
 * ({@link dev.quota.redis.internal.encoding.CasScript}) and what it is told of each key
 * ({@link dev.quota.redis.internal.encoding.CasKey}), the take it computes from another state
 * ({@link dev.quota.redis.internal.encoding.StoredTake}), the repair script
 * ({@link dev.quota.redis.internal.encoding.RepairScript}), a stored state's SHA-1
 * ({@link dev.quota.redis.internal.encoding.StateDigest}, handed on as a
 * {@link dev.quota.redis.internal.encoding.StateSha1}) and the slots of keys. The lowest of the
 * store's internal packages: it uses none of the others; the engine, the key states and the
 * transport use it. Nothing here is API. Nothing here is null unless marked {@code @Nullable}.
 */
@NullMarked
package dev.quota.redis.internal.encoding;

import org.jspecify.annotations.NullMarked;
