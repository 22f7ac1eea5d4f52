/**
 * How the store's commands reach Redis: {@link dev.quota.redis.internal.transport.RedisLink}, the
 * commands the engine sends, and {@link dev.quota.redis.internal.transport.RedissonLink}, which
 * sends them on the store's own connection per master or through Redisson's executor; a script's
 * reply tells a {@link dev.quota.redis.internal.transport.ReplyListener} when it completes. Uses
 * only the encoding (the scripts, and {@link dev.quota.redis.internal.encoding.CasKey}, what a
 * script is told of a key); used by the engine through those two interfaces, and by the store
 * that builds it. Nothing here is API. Nothing here is null unless marked {@code @Nullable}.
 */
@NullMarked
package dev.quota.redis.internal.transport;

import org.jspecify.annotations.NullMarked;
