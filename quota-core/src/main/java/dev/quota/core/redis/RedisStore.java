package dev.quota.core.redis;

import dev.quota.core.QuotaStoreException;
import dev.quota.core.internal.Bandwidths;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.QuotaStore;
import io.github.bucket4j.TokensInheritanceStrategy;
import io.github.bucket4j.VerboseResult;
import io.github.bucket4j.distributed.BucketProxy;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.distributed.proxy.RetryStrategies;
import io.github.bucket4j.distributed.proxy.optimization.Optimizations;
import io.github.bucket4j.redis.redisson.Bucket4jRedisson;
import java.util.Iterator;
import java.util.concurrent.ConcurrentHashMap;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;

/**
 * Buckets in Redis, shared by every instance: Bucket4j's compare-and-swap proxy manager over
 * Redisson. A consume that succeeds costs a GET and an EVALSHA; one that is rejected, a GET.
 *
 * <p>What it sets up, and why:
 * <ul>
 *   <li>every key expires after the time its bucket needs to refill fully plus a margin, so idle
 *       customers cost no memory;
 *   <li>compare-and-swap conflicts on a hot key are retried with exponential backoff and jitter
 *       within a budget, not in a tight loop;
 *   <li>bucket proxies are reused per key (a bounded cache) with Bucket4j's batching, so
 *       concurrent requests of one customer in one JVM share one compare-and-swap;
 *   <li>a config version change swaps a stored bucket's limits on its next use and keeps its usage.
 * </ul>
 * Build it with {@link #builder()}.
 */
public final class RedisStore implements QuotaStore {

    private final RedissonClient client;
    private final boolean ownsClient;
    private final String description;
    private final ProxyManager<String> proxies;
    private final ConcurrentHashMap<String, CachedProxy> cache = new ConcurrentHashMap<>();
    private final int maxCachedProxies;

    RedisStore(RedisStoreBuilder builder, RedissonClient client, boolean ownsClient, String description) {
        this.client = client;
        this.ownsClient = ownsClient;
        this.description = description;
        this.maxCachedProxies = builder.maxCachedProxies;
        this.proxies = Bucket4jRedisson.casBasedBuilder(((Redisson) client).getCommandExecutor())
                .expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(builder.expiryMargin))
                .clientClock(Bandwidths.timeMeter(builder.clock))
                .requestTimeout(builder.timeout)
                .retryStrategy(RetryStrategies.exponentialBackoffWithJitter(
                        builder.retryBaseDelay, builder.retryMaxDelay, builder.retryBudget))
                .build();
    }

    /** A builder: name a Redis (standalone, sentinel or cluster) or hand over a Redisson client. */
    public static RedisStoreBuilder builder() {
        return new RedisStoreBuilder();
    }

    @Override
    public ConsumeResult tryConsume(BucketKey key, BucketSpec spec, long tokens) {
        try {
            return Bandwidths.result(proxy(key, spec).asVerbose().tryConsumeAndReturnRemaining(tokens));
        } catch (RuntimeException e) {
            throw failure("consume", key, e);
        }
    }

    @Override
    public void addTokens(BucketKey key, BucketSpec spec, long tokens) {
        try {
            proxy(key, spec).addTokens(tokens);
        } catch (RuntimeException e) {
            throw failure("add tokens to", key, e);
        }
    }

    @Override
    public ConsumeResult peek(BucketKey key, BucketSpec spec) {
        try {
            VerboseResult<Long> verbose = proxy(key, spec).asVerbose().getAvailableTokens();
            var diagnostics = verbose.getDiagnostics();
            return new ConsumeResult(true, diagnostics.getAvailableTokensPerEachBandwidth(), 0,
                    diagnostics.calculateFullRefillingTime());
        } catch (RuntimeException e) {
            throw failure("read", key, e);
        }
    }

    @Override
    public void reset(BucketKey key) {
        try {
            cache.remove(key.value());
            proxies.removeProxy(key.value());
        } catch (RuntimeException e) {
            throw failure("reset", key, e);
        }
    }

    @Override
    public String describe() {
        return description;
    }

    /** The Redisson client this store talks through. */
    public RedissonClient client() {
        return client;
    }

    @Override
    public void close() {
        cache.clear();
        if (ownsClient) {
            client.shutdown();
        }
    }

    private BucketProxy proxy(BucketKey key, BucketSpec spec) {
        CachedProxy cached = cache.get(key.value());
        if (cached != null && cached.version == spec.version()) {
            return cached.proxy;
        }
        var configuration = Bandwidths.configuration(spec);
        BucketProxy proxy = proxies.builder()
                .withImplicitConfigurationReplacement(spec.version(), TokensInheritanceStrategy.ADDITIVE)
                .withOptimization(Optimizations.batching())
                .build(key.value(), () -> configuration);
        if (cache.size() >= maxCachedProxies) {
            evictSome();
        }
        cache.put(key.value(), new CachedProxy(proxy, spec.version()));
        return proxy;
    }

    /** Drops a tenth of the cached proxies; their buckets stay in Redis untouched. */
    private void evictSome() {
        int toDrop = Math.max(1, maxCachedProxies / 10);
        Iterator<String> it = cache.keySet().iterator();
        while (toDrop-- > 0 && it.hasNext()) {
            it.next();
            it.remove();
        }
    }

    private static QuotaStoreException failure(String action, BucketKey key, RuntimeException e) {
        if (e instanceof QuotaStoreException q) {
            return q;
        }
        return new QuotaStoreException("redis could not " + action + " bucket " + key + ": " + e, e);
    }

    private record CachedProxy(BucketProxy proxy, long version) {
    }
}
