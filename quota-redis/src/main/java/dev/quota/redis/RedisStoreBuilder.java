package dev.quota.redis;

import dev.quota.core.QuotaStoreException;
import dev.quota.core.spi.RetryBudget;
import dev.quota.core.spi.StoreFailures;
import dev.quota.redis.internal.keystate.KeyStates;
import dev.quota.redis.internal.transport.RedisLink;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.redisson.config.ReadMode;

/**
 * Settings for a {@link RedisStore}. Name exactly one of: a standalone {@link #uri}, a
 * {@link #sentinel} group, a {@link #cluster}, a Redisson YAML file ({@link #redissonConfig}), or an
 * existing {@link #client}.
 *
 * <p>Clients the builder creates read and write the master only ({@code ReadMode.MASTER}: a
 * compare-and-swap read from a lagging replica would fail or admit extra), do not retry commands
 * themselves, and time out after {@link #timeout} (default 2 s). A command that times out fails
 * its decision with 503; the failure policy answers only once a
 * {@link dev.quota.core.resilience.CircuitBreakerStore} in front of the store established an
 * outage (see {@link dev.quota.core.QuotaStoreException}).
 */
public final class RedisStoreBuilder {

    /** The default {@link #timeout}: 2 s. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);
    /** The default {@link #retryBudget}: 1,000 lost races. */
    public static final int DEFAULT_RETRY_BUDGET = RetryBudget.DEFAULT_LOST_RACES;

    /** How often {@link #build()} pings while it waits for Redis to answer. */
    private static final Duration CONNECT_POLL = Duration.ofMillis(50);

    private @Nullable Config redissonConfig;
    private @Nullable RedissonClient client;
    private String description = "";
    Clock clock = Clock.systemUTC();
    Duration timeout = DEFAULT_TIMEOUT;
    Duration expiryMargin = Duration.ofSeconds(60);
    int retryBudget = DEFAULT_RETRY_BUDGET;
    int maxRememberedKeys = KeyStates.defaultBound(Runtime.getRuntime().maxMemory());
    Duration rejectLocallyFor = Duration.ofSeconds(1);
    boolean reuseWrittenState = true;
    boolean ownConnections = true;
    /** Wraps the engine's link to Redis: tests hold replies there; the product sends through Redisson as is. */
    UnaryOperator<RedisLink> link = UnaryOperator.identity();
    /** How the engine measures a script's time out (its own timeout, should Redisson's not fire). */
    LongSupplier wallNanos = System::nanoTime;
    // 4 per core: Redisson pipelines commands on a connection, so fewer connections carry more
    // commands per write and per Redis wake-up, while a spare is left when one breaks (quota-bench
    // scenario 1 with --pool, docs/BENCHMARKS.md "Figures behind the code"); netty: 2 threads per core
    private int connectionPoolSize = Math.max(4, 4 * Runtime.getRuntime().availableProcessors());
    private boolean connectOnBuild = true;
    private Duration connectTimeout = Duration.ofSeconds(10);
    private int nettyThreads = Math.max(2, Runtime.getRuntime().availableProcessors() * 2);

    RedisStoreBuilder() {
    }

    /**
     * A standalone Redis, e.g. {@code redis://127.0.0.1:6379} ({@code rediss://} for TLS).
     *
     * @throws IllegalArgumentException if the URI does not start with redis:// or rediss://
     */
    public RedisStoreBuilder uri(String uri) {
        requireRedisUri(uri);
        Config config = new Config();
        config.useSingleServer().setAddress(uri);
        this.redissonConfig = config;
        this.description = "redis standalone " + uri;
        return this;
    }

    /**
     * A Sentinel-managed master: {@code masterName} as the sentinels know it, and their addresses.
     *
     * @throws IllegalArgumentException if no sentinel is given or an address is not a redis URI
     */
    public RedisStoreBuilder sentinel(String masterName, List<String> sentinels) {
        if (sentinels.isEmpty()) {
            throw new IllegalArgumentException("at least one sentinel address is required");
        }
        sentinels.forEach(RedisStoreBuilder::requireRedisUri);
        Config config = new Config();
        config.useSentinelServers().setMasterName(masterName).addSentinelAddress(sentinels.toArray(String[]::new))
                .setCheckSentinelsList(false);
        this.redissonConfig = config;
        this.description = "redis sentinel " + masterName + " via " + String.join(",", sentinels);
        return this;
    }

    /**
     * A Redis Cluster, given one or more of its nodes.
     *
     * @throws IllegalArgumentException if no node is given or an address is not a redis URI
     */
    public RedisStoreBuilder cluster(List<String> nodes) {
        if (nodes.isEmpty()) {
            throw new IllegalArgumentException("at least one cluster node address is required");
        }
        nodes.forEach(RedisStoreBuilder::requireRedisUri);
        Config config = new Config();
        config.useClusterServers().addNodeAddress(nodes.toArray(String[]::new));
        this.redissonConfig = config;
        this.description = "redis cluster via " + String.join(",", nodes);
        return this;
    }

    /**
     * A Redisson YAML config file, for settings this builder does not expose (TLS, passwords).
     * Read mode, timeout and retries are still set as described above.
     *
     * @throws UncheckedIOException if the file cannot be read or parsed
     */
    public RedisStoreBuilder redissonConfig(Path yaml) {
        try {
            this.redissonConfig = Config.fromYAML(yaml.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read Redisson config " + yaml + ": " + e.getMessage(), e);
        }
        this.description = "redis per " + yaml;
        return this;
    }

    /**
     * A Redisson client you manage: used as it is (set its read mode to MASTER yourself) and not
     * shut down when the store closes.
     */
    public RedisStoreBuilder client(RedissonClient client) {
        this.client = Objects.requireNonNull(client, "client");
        this.description = "redis via the application's Redisson client";
        return this;
    }

    /** The clock buckets refill by; default {@link Clock#systemUTC()}. */
    public RedisStoreBuilder clock(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
        return this;
    }

    /**
     * How long one Redis command may take before it fails; default 2 s. A decision whose command
     * times out is refused with 503 (its script may still run: see docs/operations.md, "in-doubt
     * writes"); it is not admitted by the failure policy, which answers only an established
     * outage. The default is patient on purpose: on a saturated 2-core machine a script's round
     * trip reached hundreds of milliseconds, and a timeout there is a 503 a client did not need.
     * A Redis that is really gone costs the first calls this long each, until the circuit breaker
     * opens.
     *
     * @throws IllegalArgumentException if not positive
     */
    public RedisStoreBuilder timeout(Duration timeout) {
        this.timeout = requirePositive(timeout, "timeout");
        return this;
    }

    /**
     * How long a key outlives the time its bucket needs to refill fully; default 60 s.
     *
     * @throws IllegalArgumentException if negative
     */
    public RedisStoreBuilder expiryMargin(Duration margin) {
        if (margin.isNegative()) {
            throw new IllegalArgumentException("expiryMargin must be >= 0 but was " + margin);
        }
        this.expiryMargin = margin;
        return this;
    }

    /**
     * How many compare-and-swap races one decision may lose (its keys written by other instances
     * between its read and its script) before it fails with 503; default 1,000. A lost race is
     * computed again at once from what Redis answered, without another read, and it means another
     * instance's decision was written: contention always makes progress, and time spent waiting
     * for Redis does not count, so a busy machine or a hot customer does not turn into failures.
     *
     * @throws IllegalArgumentException if below 1
     */
    public RedisStoreBuilder retryBudget(int lostRaces) {
        this.retryBudget = RetryBudget.require(lostRaces);
        return this;
    }

    /**
     * How many bucket keys' states this instance remembers, to write without reading first and to
     * answer refusals without Redis; default one key per KiB of the JVM's maximum heap, at most
     * 1,048,576 (1,048,576 with {@code -Xmx1g}, 524,288 with {@code -Xmx512m}): an eighth of the
     * heap at most, at about 90-110 bytes a key, and used only as keys are in use (a key is
     * forgotten when Redis would expire it). Past it, keys used long ago are forgotten (the 1,024
     * used last never), and a decision on a forgotten key costs a second round trip: one read of
     * the keys it forgot, before its script. Which keys were forgotten while Redis may still hold
     * them is noted (a 16-bit tag each, at most 8 bytes per remembered key, taken only once the
     * bound is reached), so such a key is never assumed absent, which would fail its script and
     * every other decision computed with it.
     *
     * <p>Count keys, not customers: a decision touches one key per bucket. A plan's rolling limits
     * share one key, each calendar limit has its own, and so do a rule's per-customer limits and each
     * amount qualifier; a rule's shared limit is one key for everybody. With {@code -Xmx1g} the
     * default serves a million customers on a one-limit plan, or 250,000 making the demo's transfer
     * (four keys of the customer's own), in one round trip each. The 1,024 keys used last cost about
     * 1 KB of heap each; every other remembered key is kept compact, about 90-110 bytes (the words
     * of its stored state that differ from a like state's).
     *
     * @throws IllegalArgumentException if below 1
     */
    public RedisStoreBuilder maxRememberedKeys(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("maxRememberedKeys must be >= 1 but was " + max);
        }
        this.maxRememberedKeys = max;
        return this;
    }

    /**
     * How long a refusal may be answered from the states Redis last confirmed, without a command;
     * default 1 s. A client flooding an empty bucket is refused from memory; consumption by other
     * instances only lowers tokens, so the refusal stands; a reset or refund made on another instance
     * is seen within this time. {@link Duration#ZERO} asks Redis for every decision.
     *
     * @throws IllegalArgumentException if negative
     */
    public RedisStoreBuilder rejectLocallyFor(Duration max) {
        if (max.isNegative()) {
            throw new IllegalArgumentException("rejectLocallyFor must be >= 0 but was " + max);
        }
        this.rejectLocallyFor = max;
        return this;
    }

    /**
     * Whether a decision starts from the bucket states this instance last wrote or saw, skipping the
     * read; default true. A customer whose requests reach one instance then costs one round trip
     * per decision instead of two; the compare-and-swap checks the states, so answers are the same
     * either way. A key another instance wrote in between costs one more round trip.
     */
    public RedisStoreBuilder reuseWrittenState(boolean reuse) {
        this.reuseWrittenState = reuse;
        return this;
    }

    /**
     * Whether the store's scripts and reads go on one connection it holds per Redis master, written
     * and read by the store itself; default true. With false every command goes through Redisson's
     * command executor, the reference path: the same commands and answers, at more CPU per call on
     * the client. Turn it off to rule the store's own connection out when diagnosing a problem, or
     * where a Redisson configuration the store's connection does not support matters (it already
     * falls back to the executor for TLS, a master it cannot reach, and while its connection is being
     * made). The store contract and the multi-instance contract run both ways.
     */
    public RedisStoreBuilder ownConnections(boolean own) {
        this.ownConnections = own;
        return this;
    }

    /**
     * Connections per Redis master for a client this builder creates; default 4 per core, at least
     * 4 (8 on 2 cores). Fewer connections carry more pipelined commands each, which on a small
     * machine costs less CPU on both sides than many lightly used ones.
     *
     * @throws IllegalArgumentException if below 1
     */
    public RedisStoreBuilder connectionPoolSize(int size) {
        if (size < 1) {
            throw new IllegalArgumentException("connectionPoolSize must be >= 1 but was " + size);
        }
        this.connectionPoolSize = size;
        return this;
    }

    /**
     * Whether {@link #build()} connects to Redis and fails if it cannot; default true. With false,
     * {@code build()} returns without contacting Redis and the first commands connect: until Redis
     * answers they fail, and the failure policy answers for them. For an application that must
     * start while Redis is down. Applies to a client this builder creates, not to {@link #client}.
     */
    public RedisStoreBuilder connectOnBuild(boolean connect) {
        this.connectOnBuild = connect;
        return this;
    }

    /**
     * How long {@link #build()} keeps trying to reach Redis when {@link #connectOnBuild} is true;
     * default 10 s. Separate from {@link #timeout}: a cold JVM's first command can take longer
     * than a decision may wait.
     *
     * @throws IllegalArgumentException if not positive
     */
    public RedisStoreBuilder connectTimeout(Duration connectTimeout) {
        this.connectTimeout = requirePositive(connectTimeout, "connectTimeout");
        return this;
    }

    /**
     * The store. A client the builder creates connects now, unless {@link #connectOnBuild} is false.
     *
     * @throws IllegalStateException if no Redis was named
     * @throws QuotaStoreException if Redis cannot be reached
     */
    public RedisStore build() {
        if (client != null) {
            return new RedisStore(this, client, false, description);
        }
        if (redissonConfig == null) {
            throw new IllegalStateException("name a Redis: uri, sentinel, cluster, redissonConfig or client");
        }
        Config config = redissonConfig;
        int millis = (int) Math.max(1, timeout.toMillis());
        config.setNettyThreads(nettyThreads);
        // always lazy: the connection check below has its own deadline instead of the command timeout
        config.setLazyInitialization(true);
        if (config.isClusterConfig()) {
            config.useClusterServers().setReadMode(ReadMode.MASTER).setTimeout(millis).setRetryAttempts(0)
                    .setMasterConnectionPoolSize(connectionPoolSize)
                    .setMasterConnectionMinimumIdleSize(Math.min(connectionPoolSize, 4));
        } else if (config.isSentinelConfig()) {
            config.useSentinelServers().setReadMode(ReadMode.MASTER).setTimeout(millis).setRetryAttempts(0)
                    .setMasterConnectionPoolSize(connectionPoolSize)
                    .setMasterConnectionMinimumIdleSize(Math.min(connectionPoolSize, 4));
        } else {
            config.useSingleServer().setTimeout(millis).setRetryAttempts(0)
                    .setConnectionPoolSize(connectionPoolSize)
                    .setConnectionMinimumIdleSize(Math.min(connectionPoolSize, 4));
        }
        RedissonClient created;
        try {
            created = Redisson.create(config);
        } catch (RuntimeException e) {
            throw StoreFailures.wrap("cannot connect to " + description, e);
        }
        try {
            RedisStore store = new RedisStore(this, created, true, description);
            if (connectOnBuild) {
                awaitConnected(store);
            }
            return store;
        } catch (RuntimeException | Error e) {
            // whatever was started is released: a failed build must not leave Redisson's threads behind
            created.shutdown();
            throw e;
        }
    }

    /** Pings until Redis answers or {@link #connectTimeout} passes; then closes and throws. */
    private void awaitConnected(RedisStore store) {
        long deadline = System.nanoTime() + connectTimeout.toNanos();
        while (true) {
            try {
                store.ping();
                return;
            } catch (QuotaStoreException e) {
                if (System.nanoTime() - deadline >= 0) {
                    throw new QuotaStoreException("cannot connect to " + description + " within "
                            + connectTimeout.toMillis() + " ms: " + e.getMessage(), e);
                }
                LockSupport.parkNanos(CONNECT_POLL.toNanos());
            }
        }
    }

    private static void requireRedisUri(String uri) {
        if (uri == null || !(uri.startsWith("redis://") || uri.startsWith("rediss://"))) {
            throw new IllegalArgumentException("redis address must start with redis:// or rediss:// but was " + uri);
        }
    }

    private static Duration requirePositive(Duration d, String what) {
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(what + " must be positive but was " + d);
        }
        return d;
    }
}
