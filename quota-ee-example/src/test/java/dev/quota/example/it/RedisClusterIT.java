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
        // the README's settings only: the store and where it is
        return Map.of("quota.store", "redis", "quota.redis.uri", redis.uri());
    }

    @Override
    void stopStore() {
        if (redis != null) {
            redis.close();
        }
    }
}
