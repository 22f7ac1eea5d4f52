package dev.quota.bench;

import dev.quota.testkit.RedisServer;
import dev.quota.testkit.RespClient;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

/**
 * The redis-server every scenario runs against, started on loopback through the testkit, and an
 * admin connection of its own for FLUSHALL, CONFIG RESETSTAT and INFO commandstats.
 */
final class RedisUnderTest implements AutoCloseable {

    /**
     * How long the admin connection waits for a reply: FLUSHALL of the 500,000 keys 100,000
     * customers' transfers leave takes seconds on a loaded machine.
     */
    private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(60);

    private final RedisServer server;
    private final RespClient admin;

    private RedisUnderTest(RedisServer server) {
        this.server = server;
        this.admin = RespClient.connect(server.host(), server.port(), ADMIN_TIMEOUT);
    }

    static RedisUnderTest start() {
        return new RedisUnderTest(RedisServer.start());
    }

    String uri() {
        return server.uri();
    }

    String version() {
        String info = admin.info("server");
        for (String line : info.split("\r\n")) {
            if (line.startsWith("redis_version:")) {
                return line.substring("redis_version:".length());
            }
        }
        return "unknown";
    }

    /** Deletes every key, so each run starts from empty buckets and a small dataset. */
    void flush() {
        admin.flushAll();
    }

    /** Zeroes INFO commandstats. */
    void resetStats() {
        admin.command("CONFIG", "RESETSTAT");
    }

    /**
     * Calls per command since the last reset, without this connection's own INFO and CONFIG.
     * Commands that ran inside a Lua script are counted too: Redis does.
     */
    Map<String, Long> commandStats() {
        Map<String, Long> stats = new TreeMap<>(admin.commandStats());
        stats.remove("info");
        stats.keySet().removeIf(name -> name.startsWith("config"));
        return stats;
    }

    /** CPU seconds the server has used, user plus system ({@code INFO cpu}). */
    double cpuSeconds() {
        double total = 0;
        for (String line : admin.info("cpu").split("\r\n")) {
            if (line.startsWith("used_cpu_sys:") || line.startsWith("used_cpu_user:")) {
                total += Double.parseDouble(line.substring(line.indexOf(':') + 1));
            }
        }
        return total;
    }

    /** CPU nanoseconds this JVM has used, every thread. */
    static long jvmCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    @Override
    public void close() {
        admin.close();
        server.close();
    }
}
