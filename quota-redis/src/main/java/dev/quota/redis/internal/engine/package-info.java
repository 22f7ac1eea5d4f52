/**
 * The compare-and-swap engine ({@link dev.quota.redis.internal.engine.CasEngine}): jobs combined
 * into rounds, a round's script sent and its reply settled by the pipeline, one caller at a time
 * holding the combiner's flag. The top of the store's internal packages: it uses the key states
 * ({@link dev.quota.redis.internal.keystate.KeyStates}), the encoding and the transport
 * ({@link dev.quota.redis.internal.transport.RedisLink}), and none of them uses it; where they
 * need something of it, they name it as a type of their own that the engine's classes are (its
 * {@link dev.quota.redis.internal.engine.Cell} a
 * {@link dev.quota.redis.internal.encoding.CasKey} and a
 * {@link dev.quota.redis.internal.encoding.StateSha1}, its
 * {@link dev.quota.redis.internal.engine.Flight} a
 * {@link dev.quota.redis.internal.transport.ReplyListener}). Nothing here is API. Nothing here is
 * null unless marked {@code @Nullable}.
 */
@NullMarked
package dev.quota.redis.internal.engine;

import org.jspecify.annotations.NullMarked;
