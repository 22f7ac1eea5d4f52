package dev.quota.example.it;

import dev.quota.testkit.RedisServer;
import java.util.Map;

/** The example WAR on two Payara Micro servers sharing buckets in Redis ({@code quota.store=redis}). */
class RedisClusterIT extends ClusterContract {

    private RedisServer redis;

    @Override
    String name() {
        return "redis";
    }

    @Override
    Map<String, String> storeSettings() {
        redis = RedisServer.start();
        // two server JVMs beside the build on 2 cores: the library's 100 ms default is for a quiet
        // machine, and a timeout here would turn into the failure policy rather than a decision
        return Map.of("quota.store", "redis", "quota.redis.uri", redis.uri(), "quota.redis.timeout", "10s",
                "quota.redis.retry-budget", "30s");
    }

    @Override
    void stopStore() {
        if (redis != null) {
            redis.close();
        }
    }
}
