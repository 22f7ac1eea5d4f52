package dev.quota.redis.internal.transport;

import dev.quota.redis.internal.encoding.CasKey;
import dev.quota.redis.internal.encoding.CasScript;
import dev.quota.redis.internal.encoding.RepairScript;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * The commands the compare-and-swap engine sends, each answered asynchronously: the seam between
 * the engine and the Redis client. Called by the caller that combines, which never waits on a
 * reply while it combines; a reply completes its future on the client's thread (a
 * {@link ReplyListener} is told then) and is settled by the next caller that combines. An
 * implementation reads what it is given before the call returns and never after.
 *
 * <p>{@link RedissonLink} sends them through Redisson. A test may wrap it to hold each reply until
 * it releases it, so that the same engine code runs in an order the test chooses.
 */
public interface RedisLink {

    /**
     * Runs the compare-and-swap script ({@link CasScript}) on {@code keys}, routed by the first:
     * each expected to hold its {@link CasKey#expectedHigh digest} (none: no key), written with its
     * new state where it {@link CasKey#writes} for its {@link CasKey#ttlMillis} (0: no expiry). The
     * reply is {@link CasScript#differences}' to read.
     */
    CompletableFuture<List<Object>> compareAndSwap(List<? extends CasKey> keys);

    /** Reads one key's bytes; null when it does not exist. */
    CompletableFuture<byte[]> get(String key);

    /**
     * Reads the bytes of {@code keys}, all of one Redis Cluster slot, in one command
     * ({@code MGET}): each null where the key does not exist or holds another type.
     */
    CompletableFuture<List<Object>> getAll(List<String> keys);

    /**
     * Deletes {@code key} if it holds another type than a string, or, when {@code unreadable} is
     * given, if it still holds those bytes ({@link RepairScript}). Answers what was done, as
     * {@link RepairScript#TEXT} answers it: 0 nothing, 1 no key, 3 unreadable bytes deleted,
     * 10 and more another type deleted.
     */
    CompletableFuture<Long> deleteUnreadable(String key, byte @Nullable [] unreadable);

    /** Deletes one key. */
    CompletableFuture<?> delete(String key);
}
