package dev.quota.redis.internal.engine;

import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import java.util.Objects;

/**
 * How the engine runs, as the store's builder set it: one value instead of a constructor of ten
 * arguments, two of them flags.
 *
 * @param expiry            the TTL each written state gets
 * @param timeoutNanos      how long a script or read may wait for its reply
 * @param maxLostRaces      compare-and-swap rounds a job may lose before it fails
 * @param trustNanos        how long a refusal computed on the states Redis last confirmed stands
 *                          without asking Redis again (0: never)
 * @param reuseWrittenState whether a job on a key this instance wrote last is computed on what it
 *                          wrote, without reading the key first
 * @param cluster           whether the Redis is a Cluster: every call holds keys of one slot
 * @param maxKnownKeys      keys whose last state the engine remembers
 */
public record EngineSettings(ExpirationAfterWriteStrategy expiry, long timeoutNanos, int maxLostRaces, long trustNanos,
                             boolean reuseWrittenState, boolean cluster, int maxKnownKeys) {

    /** @throws NullPointerException if {@code expiry} is null */
    public EngineSettings {
        Objects.requireNonNull(expiry, "expiry");
    }
}
