package dev.quota.testkit;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** Every started server, so one JVM shutdown hook can kill what tests forgot to close. */
final class LiveServers {

    private static final Set<RedisServer> SERVERS = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(LiveServers::killAll, "quota-testkit-redis-reaper"));
    }

    private LiveServers() {
    }

    static void register(RedisServer server) {
        SERVERS.add(server);
    }

    static void unregister(RedisServer server) {
        SERVERS.remove(server);
    }

    private static void killAll() {
        for (RedisServer server : SERVERS) {
            server.destroyOnJvmExit();
        }
    }
}
