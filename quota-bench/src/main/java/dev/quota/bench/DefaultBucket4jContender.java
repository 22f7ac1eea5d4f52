package dev.quota.bench;

import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.redis.redisson.Bucket4jRedisson;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;

/**
 * Baseline (c): Bucket4j's compare-and-swap ProxyManager over Redisson as its documentation shows
 * it: default settings, a new bucket proxy per call, no batching, the default retry. What a user
 * gets without this module's tuning.
 */
final class DefaultBucket4jContender implements Contender {

    private final ProxyManager<String> proxies;
    private final BucketConfiguration configuration;
    private final String namespace;

    DefaultBucket4jContender(RedissonClient client, LimitSpec limit, String namespace) {
        this.proxies = Bucket4jRedisson.casBasedBuilder(((Redisson) client).getCommandExecutor()).build();
        this.configuration = BucketConfiguration.builder()
                .addLimit(b -> b.capacity(limit.capacity()).refillGreedy(limit.capacity(), limit.period()))
                .build();
        this.namespace = namespace + ":b4j:";
    }

    @Override
    public Outcome acquire(int customer) {
        try {
            boolean consumed = proxies.builder().build(namespace + customer, () -> configuration).tryConsume(1);
            return consumed ? Outcome.ADMITTED : Outcome.REJECTED;
        } catch (RuntimeException e) {
            return Outcome.ERROR;
        }
    }

    @Override
    public String keyMarker(int customer) {
        return namespace + customer;
    }

    @Override
    public void close() {
        // the client belongs to the instance
    }
}
