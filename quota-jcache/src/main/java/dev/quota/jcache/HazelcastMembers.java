package dev.quota.jcache;

import com.hazelcast.cache.HazelcastCacheManager;
import com.hazelcast.cache.ICache;
import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstance;
import java.util.function.IntSupplier;
import javax.cache.Cache;
import javax.cache.CacheManager;
import org.jspecify.annotations.Nullable;

/**
 * The member count of a Hazelcast grid, this member's rank in it, and this member as a lease holder.
 * Loaded only when Hazelcast is on the class path; see {@link JCacheStore#members},
 * {@link JCacheStore#rank} and {@link JCacheStoreBuilder#memberLeases}.
 */
final class HazelcastMembers {

    private HazelcastMembers() {
    }

    /** The count of the grid behind {@code cache}, or null when the cache is not Hazelcast's. */
    static @Nullable IntSupplier of(Cache<?, ?> cache) {
        HazelcastInstance hazelcast = instance(cache);
        // the member's own view of the cluster: no remote call; throws while the member is shut down
        return hazelcast == null ? null : () -> hazelcast.getCluster().getMembers().size();
    }

    /**
     * This member's place in the member list of the grid behind {@code cache} (the oldest member
     * first, the same list on every member), or null when the cache is not Hazelcast's.
     */
    static @Nullable IntSupplier rankOf(Cache<?, ?> cache) {
        HazelcastInstance hazelcast = instance(cache);
        if (hazelcast == null) {
            return null;
        }
        return () -> {
            Member self = hazelcast.getCluster().getLocalMember();
            int rank = 0;
            for (Member member : hazelcast.getCluster().getMembers()) {
                if (member.getUuid().equals(self.getUuid())) {
                    return rank;
                }
                rank++;
            }
            return -1;
        };
    }

    /**
     * This member as the holder of its in-flight leases on the grid behind {@code cache}, watching
     * which members leave it, or null when the cache is not Hazelcast's.
     */
    static @Nullable LeaseHolders leaseHoldersOf(Cache<?, ?> cache) {
        HazelcastInstance hazelcast = instance(cache);
        return hazelcast == null ? null : new HazelcastLeaseHolders(hazelcast, cache.getName(), System::nanoTime);
    }

    private static @Nullable HazelcastInstance instance(Cache<?, ?> cache) {
        try {
            CacheManager manager = cache.getCacheManager();
            if (!(manager instanceof HazelcastCacheManager)) {
                manager = cache.unwrap(ICache.class).getCacheManager(); // a server's wrapper around Hazelcast's cache
            }
            if (!(manager instanceof HazelcastCacheManager hazelcastManager)) {
                return null;
            }
            return hazelcastManager.getHazelcastInstance();
        } catch (RuntimeException | LinkageError e) {
            return null; // another provider, or Hazelcast from another class loader
        }
    }
}
