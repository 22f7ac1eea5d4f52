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
        // compare-and-swap, the default: races between the members on one hot bucket on a busy
        // machine need more than the default 500 ms to settle
        return Map.of("quota.store", "jcache", "quota.jcache.cache", "quota-it-buckets",
                "quota.jcache.retry-budget", "30s");
    }
}
