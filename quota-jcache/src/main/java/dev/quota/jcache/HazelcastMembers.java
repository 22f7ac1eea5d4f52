package dev.quota.jcache;

import com.hazelcast.cache.HazelcastCacheManager;
import com.hazelcast.cache.ICache;
import com.hazelcast.core.HazelcastInstance;
import java.util.function.IntSupplier;
import javax.cache.Cache;
import javax.cache.CacheManager;
import org.jspecify.annotations.Nullable;

/** The member count of a Hazelcast grid. Loaded only when Hazelcast is on the class path; see {@link JCacheStore#members}. */
final class HazelcastMembers {

    private HazelcastMembers() {
    }

    /** The count of the grid behind {@code cache}, or null when the cache is not Hazelcast's. */
    static @Nullable IntSupplier of(Cache<?, ?> cache) {
        HazelcastInstance hazelcast;
        try {
            CacheManager manager = cache.getCacheManager();
            if (!(manager instanceof HazelcastCacheManager)) {
                manager = cache.unwrap(ICache.class).getCacheManager(); // a server's wrapper around Hazelcast's cache
            }
            if (!(manager instanceof HazelcastCacheManager hazelcastManager)) {
                return null;
            }
            hazelcast = hazelcastManager.getHazelcastInstance();
        } catch (RuntimeException | LinkageError e) {
            return null; // another provider, or Hazelcast from another class loader
        }
        // the member's own view of the cluster: no remote call; throws while the member is shut down
        return () -> hazelcast.getCluster().getMembers().size();
    }
}
