package dev.quota.bench;

import dev.quota.redis.RedisStore;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * One application instance's Redis client, configured exactly as {@link RedisStore}'s builder
 * configures the clients it creates (pool, netty threads, no retries; the timeout is 1 s), plus a
 * {@link CommandCounter}. Every contender of the instance talks through this one client.
 */
public final class Instance implements AutoCloseable {

    /** The command timeout of every bench client. */
    public static final Duration TIMEOUT = Duration.ofSeconds(1);

    private final RedissonClient client;
    private final CommandCounter counter;

    private Instance(RedissonClient client, CommandCounter counter) {
        this.client = client;
        this.counter = counter;
    }

    /**
     * A client for {@code uri} with the store builder's settings; {@code nettyThreads} and
     * {@code poolSize} override them when positive.
     */
    public static Instance connect(String uri, int nettyThreads, int poolSize) {
        // a busy shared machine can miss a connect-time PING deadline: try a few times
        RuntimeException last = null;
        for (int attempt = 0; attempt < 3; attempt++) {
            try {
                return tryConnect(uri, nettyThreads, poolSize);
            } catch (RuntimeException e) {
                last = e;
            }
        }
        throw last;
    }

    private static Instance tryConnect(String uri, int nettyThreads, int poolSize) {
        Config tuned;
        // let the store's builder configure a client, then copy its config: no settings drift
        // 1 s instead of the store's 100 ms: a cold JVM on 2 busy cores can miss 100 ms on its first
        // PING, and a contended baseline would show timeouts instead of its latency
        var builder = RedisStore.builder().uri(uri).timeout(TIMEOUT);
        if (poolSize > 0) {
            builder.connectionPoolSize(poolSize);
        }
        RedisStore probe = builder.build();
        try {
            tuned = new Config(probe.client().getConfig());
        } finally {
            probe.close();
        }
        if (nettyThreads > 0) {
            tuned.setNettyThreads(nettyThreads);
        }
        CommandCounter counter = new CommandCounter();
        tuned.setNettyHook(counter);
        return new Instance(Redisson.create(tuned), counter);
    }

    /** The client. */
    public RedissonClient client() {
        return client;
    }

    /** The commands this client has sent. */
    public CommandCounter counter() {
        return counter;
    }

    /** A short description of the client's sizing, for the report. */
    public String sizing() {
        Config cfg = client.getConfig();
        return "netty threads " + cfg.getNettyThreads() + ", pool " + cfg.useSingleServer().getConnectionPoolSize();
    }

    @Override
    public void close() {
        client.shutdown(0, 2, TimeUnit.SECONDS);
    }
}
