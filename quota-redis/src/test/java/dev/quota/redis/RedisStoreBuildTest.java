package dev.quota.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quota.core.QuotaStoreException;
import dev.quota.testkit.Await;
import dev.quota.testkit.RedisServer;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * A build that fails releases what it started: Redisson's event-loop threads are not daemons, so a
 * client left behind by a failed build keeps the application's JVM from exiting.
 */
class RedisStoreBuildTest {

    private static final String NETTY_THREADS = "redisson-netty";

    @Test
    void build_whenRedisUnreachable_leavesNoClientThreadsBehind() throws Exception {
        Set<Thread> before = Set.copyOf(nettyThreads());
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }

        assertThatThrownBy(() -> RedisStore.builder().uri("redis://127.0.0.1:" + closedPort)
                .connectTimeout(Duration.ofMillis(300)).build())
                .isInstanceOf(QuotaStoreException.class);

        Await.until(Duration.ofSeconds(30), () -> newThreads(before).isEmpty(),
                () -> "Redisson threads of the failed build to end, still alive: " + newThreads(before));
    }

    @Test
    void threadsOfAWorkingStore_areSeenByThisTest_andEndWithClose() {
        // the check above is only worth something if it sees a client's threads at all
        Set<Thread> before = Set.copyOf(nettyThreads());
        try (RedisServer redis = RedisServer.start()) {
            RedisStore store = RedisStore.builder().uri(redis.uri()).build();
            store.ping();
            assertThat(newThreads(before)).as("threads of an open client").isNotEmpty()
                    .allSatisfy(t -> assertThat(t.isDaemon()).as(t.getName() + " is a daemon").isFalse());

            store.close();
        }

        Await.until(Duration.ofSeconds(30), () -> newThreads(before).isEmpty(),
                () -> "Redisson threads of the closed store to end, still alive: " + newThreads(before));
    }

    private static List<Thread> newThreads(Set<Thread> before) {
        return nettyThreads().stream().filter(t -> !before.contains(t)).collect(Collectors.toList());
    }

    private static List<Thread> nettyThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .filter(t -> t.getName().startsWith(NETTY_THREADS))
                .collect(Collectors.toList());
    }
}
