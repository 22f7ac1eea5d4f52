package dev.quota.bench.net;

import org.jspecify.annotations.Nullable;

/**
 * Bytes read from one direction of a link, held until {@code due}.
 *
 * @param to    where they go
 * @param bytes what was read, or null for the end of stream
 * @param due   {@link System#nanoTime} at which they may be written: read time plus the one-way delay
 */
record Chunk(Link.Direction to, byte @Nullable [] bytes, long due) {
}
