package dev.quota.example.it;

import java.util.Map;

/**
 * The example WAR on two Payara Micro servers sharing buckets in the servers' own JCache
 * ({@code quota.store=jcache}: Payara's Hazelcast, no Redis anywhere). Each bucket lives on one
 * member; the burst sends half of its requests to each, so half of them reach their bucket on
 * the other member.
 */
class JCacheClusterIT extends ClusterContract {

    @Override
    String name() {
        return "jcache";
    }

    @Override
    Map<String, String> storeSettings() {
        // the defaults (compare-and-swap, a retry budget counted in lost races); a cache of its own
        return Map.of("quota.store", "jcache", "quota.jcache.cache", "quota-it-buckets");
    }
}
