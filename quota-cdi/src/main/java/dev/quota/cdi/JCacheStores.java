package dev.quota.cdi;

import dev.quota.core.QuotaStoreException;
import dev.quota.jcache.JCacheStore;
import java.util.List;
import javax.cache.Cache;
import javax.cache.CacheException;
import javax.cache.CacheManager;

/**
 * {@code quota.store=jcache}: loaded only then. The cache comes from the application's
 * {@code javax.cache.CacheManager} bean (Payara produces one over its Hazelcast data grid), never
 * from {@code Caching.getCachingProvider()}, which on Payara is Hazelcast's client and blocks
 * looking for a cluster to connect to.
 */
final class JCacheStores {

    private JCacheStores() {
    }

    /**
     * A JCache store, pinged by the stack's circuit breaker (an unreachable grid is answered by each
     * limit's failure policy at once).
     *
     * @throws InvalidSettingsException naming {@code quota.store} when there is no cache manager, or
     *                                  {@code quota.jcache.cache} when the cache cannot hold buckets
     */
    static Stores.Built build(QuotaSettings settings, AppBeans beans) {
        if (!(beans.bean("javax.cache.CacheManager") instanceof CacheManager manager)) {
            throw new InvalidSettingsException(List.of(QuotaSettings.STORE + ": jcache needs a"
                    + " javax.cache.CacheManager bean: the server's (Payara has one), or one the application"
                    + " produces"));
        }
        boolean processors = settings.jcacheMode().equals("entry-processor");
        String name = settings.jcacheCache();
        try {
            Cache<String, byte[]> cache = processors
                    ? JCacheStore.cache(manager, name, settings.jcacheExpireAfterWrite())
                    : JCacheStore.cache(manager, name);
            JCacheStore store = JCacheStore.builder(cache)
                    .update(processors ? JCacheStore.Update.ENTRY_PROCESSOR : JCacheStore.Update.COMPARE_AND_SWAP)
                    .retryBudget(settings.jcacheRetryBudget())
                    .build();
            // the local policy divides limits by the grid's members (on Hazelcast; 1 elsewhere)
            return new Stores.Built(store, store::ping, JCacheStore.members(cache), JCacheStore.rank(cache), List.of());
        } catch (CacheException | ClassCastException | IllegalStateException | QuotaStoreException e) {
            throw new InvalidSettingsException(List.of(QuotaSettings.JCACHE_CACHE + ": cache '" + name + "' of "
                    + manager.getURI() + " cannot hold buckets: " + e.getMessage()));
        }
    }
}
