/**
 * What this instance remembers of each bucket key, in tiers
 * ({@link dev.quota.redis.internal.keystate.KeyStates} is the one entry point): the hot keys
 * parsed, the cold ones compact, the notes of keys forgotten before they expired. Uses only the
 * encoding (a state's SHA-1, {@link dev.quota.redis.internal.encoding.StateSha1}, which the
 * engine's cell of a key is too); used by the engine, whose combining caller alone reads and
 * writes it, and by the store's builder for the default bound. Nothing here is API. Nothing here
 * is null unless marked {@code @Nullable}.
 */
@NullMarked
package dev.quota.redis.internal.keystate;

import org.jspecify.annotations.NullMarked;
