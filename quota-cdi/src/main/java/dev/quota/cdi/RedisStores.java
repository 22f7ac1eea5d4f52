package dev.quota.cdi;

import dev.quota.core.QuotaStoreException;
import dev.quota.redis.InstanceRegistry;
import dev.quota.redis.RedisStore;
import java.util.List;
import java.util.Objects;

/** {@code quota.store=redis}: loaded only then, so an application without quota-redis never needs it. */
final class RedisStores {

    private RedisStores() {
    }

    /**
     * A Redis store, pinged by the stack's circuit breaker (an outage is answered by each limit's
     * failure policy at once), with the live instances counted in Redis for the {@code local} policy.
     *
     * @throws InvalidSettingsException naming {@code quota.redis.uri} when Redis does not answer
     */
    static Stores.Built build(QuotaSettings settings) {
        String uri = Objects.requireNonNull(settings.redisUri(), "redisUri");
        RedisStore redis;
        try {
            redis = RedisStore.builder().uri(uri).timeout(settings.redisTimeout())
                    .retryBudget(settings.redisRetryBudget()).build();
        } catch (QuotaStoreException | IllegalArgumentException e) {
            throw new InvalidSettingsException(List.of(QuotaSettings.REDIS_URI + ": cannot use " + redact(uri) + ": "
                    + e.getMessage()));
        }
        try {
            InstanceRegistry instances = InstanceRegistry.builder(redis.client()).keyPrefix(settings.keyPrefix())
                    .build();
            return new Stores.Built(redis, redis::ping, instances::liveInstances, instances::rank,
                    instances::leaseHolder, List.of(instances));
        } catch (RuntimeException e) {
            redis.close();
            throw e;
        }
    }

    /** The URI without a password ({@code redis://:secret@host} is {@code redis://***@host}). */
    static String redact(String uri) {
        int at = uri.lastIndexOf('@');
        int scheme = uri.indexOf("://");
        return at > scheme && scheme > 0 ? uri.substring(0, scheme + 3) + "***" + uri.substring(at) : uri;
    }
}
