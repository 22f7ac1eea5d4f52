package dev.quota.redis;

import dev.quota.core.QuotaStoreException;
import dev.quota.core.internal.Bandwidths;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.QuotaStore;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.TokensInheritanceStrategy;
import io.github.bucket4j.VerboseResult;
import io.github.bucket4j.distributed.BucketProxy;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.ClientSideConfig;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.distributed.proxy.optimization.Optimizations;
import io.github.bucket4j.redis.redisson.Bucket4jRedisson;
import java.util.Iterator;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
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
 *   <li>a consume starts from the state this instance last wrote for the key, so a customer
 *       served by one instance costs one EVALSHA, not a GET and an EVALSHA; the compare-and-swap
 *       still checks it, and an answer it did not confirm is computed again from Redis;
 *   <li>a customer whose bucket is empty is rejected from memory, without a Redis command, until
 *       its next token is due (trusting that for at most {@link RedisStoreBuilder#rejectLocallyFor},
 *       default 1 s), so a client flooding at 20 times its limit costs Redis about what its
 *       admitted requests cost;
 *   <li>a config version change swaps a stored bucket's limits on its next use and keeps its usage;
 *   <li>a key that holds something other than a bucket (another type, garbage bytes) is deleted
 *       with a WARN log and the bucket starts full, instead of failing that customer's requests;
 *   <li>a {@link RedisTimeClock} given as its clock samples Redis through this store's client.
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
    private final LocalRejections rejections;
    private final BucketRepair repair;
    private final @Nullable RedisTimeClock attachedClock;

    RedisStore(RedisStoreBuilder builder, RedissonClient client, boolean ownsClient, String description) {
        this.client = client;
        this.ownsClient = ownsClient;
        this.description = description;
        this.maxCachedProxies = builder.maxCachedProxies;
        this.rejections = new LocalRejections(Bandwidths.timeMeter(builder.clock),
                builder.rejectLocallyFor.toNanos(), builder.maxCachedProxies);
        var expiry = ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(builder.expiryMargin);
        var retry = new BackoffRetry(builder.retryBaseDelay, builder.retryMaxDelay, builder.retryBudget);
        this.proxies = builder.reuseWrittenState
                ? new WrittenStateProxyManager(((Redisson) client).getCommandExecutor(), ClientSideConfig.getDefault()
                        .withRequestTimeout(builder.timeout).withRetryStrategy(retry),
                        expiry, Bandwidths.timeMeter(builder.clock), builder.maxCachedProxies)
                : Bucket4jRedisson.casBasedBuilder(((Redisson) client).getCommandExecutor())
                        .expirationAfterWrite(expiry)
                        .clientClock(Bandwidths.timeMeter(builder.clock))
                        .requestTimeout(builder.timeout)
                        .retryStrategy(retry)
                        .build();
        this.repair = new BucketRepair(client);
        // a Redis clock given to this store samples through this store's client, and stops with it
        this.attachedClock = builder.clock instanceof RedisTimeClock redisTime && redisTime.attach(client)
                ? redisTime : null;
    }

    /** A builder: name a Redis (standalone, sentinel or cluster) or hand over a Redisson client. */
    public static RedisStoreBuilder builder() {
        return new RedisStoreBuilder();
    }

    @Override
    public ConsumeResult tryConsume(BucketKey key, BucketSpec spec, long tokens) {
        ConsumeResult known = rejections.reject(key, spec, tokens);
        if (known != null) {
            return known; // the bucket is empty until its next token is due: no Redis command
        }
        return repairing("consume", key, () -> {
            long stamp = rejections.stamp(key);
            VerboseResult<ConsumptionProbe> verbose = proxy(key, spec).asVerbose().tryConsumeAndReturnRemaining(tokens);
            ConsumeResult result = Bandwidths.result(verbose);
            rejections.remember(key, spec, tokens, stamp, verbose, result);
            return result;
        });
    }

    @Override
    public void addTokens(BucketKey key, BucketSpec spec, long tokens) {
        try {
            repairing("add tokens to", key, () -> {
                proxy(key, spec).addTokens(tokens);
                return null;
            });
        } finally {
            rejections.forget(key);
        }
    }

    @Override
    public ConsumeResult peek(BucketKey key, BucketSpec spec) {
        return repairing("read", key, () -> {
            VerboseResult<Long> verbose = proxy(key, spec).asVerbose().getAvailableTokens();
            var diagnostics = verbose.getDiagnostics();
            return new ConsumeResult(true, diagnostics.getAvailableTokensPerEachBandwidth(), 0,
                    diagnostics.calculateFullRefillingTime());
        });
    }

    @Override
    public void reset(BucketKey key) {
        try {
            cache.remove(key.value());
            proxies.removeProxy(key.value());
        } catch (RuntimeException e) {
            throw failure("reset", key, e);
        } finally {
            rejections.forget(key);
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

    /**
     * Returns when every Redis master answers ({@code DBSIZE}) within the store's timeout: the
     * health check for a circuit breaker,
     * {@code CircuitBreakerStore.builder(store).healthCheck(store::ping)}.
     *
     * @throws QuotaStoreException if a master does not answer in time
     */
    public void ping() {
        try {
            client.getKeys().count();
        } catch (RuntimeException e) {
            throw new QuotaStoreException("redis does not answer (" + description + "): " + e, e);
        }
    }

    @Override
    public void close() {
        cache.clear();
        rejections.clear();
        if (attachedClock != null) {
            attachedClock.close();
        }
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

    /**
     * Runs a bucket operation; if it failed because the key held something that is not a bucket
     * (a list, garbage bytes), the key is deleted and the operation runs once more on a full bucket.
     */
    private <T> T repairing(String action, BucketKey key, Supplier<T> operation) {
        try {
            return operation.get();
        } catch (RuntimeException e) {
            if (!repair.removedCorrupt(key, e)) {
                throw failure(action, key, e);
            }
        }
        try {
            return operation.get();
        } catch (RuntimeException e) {
            throw failure(action, key, e);
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
