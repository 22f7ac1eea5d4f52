package dev.quota.testkit;

import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * A real Redis for a test class (JUnit 5): started once before the class's first test, closed (process
 * stopped, port free, directory deleted) after its last. One of three kinds, each as the testkit
 * starts it: a {@link RedisServer standalone server}, a {@link RedisSentinelTopology sentinel topology}
 * (master, replica, three sentinels) or a {@link RedisClusterTopology three-master cluster}. The data
 * stays from one test to the next; a test that needs it empty flushes it
 * ({@link RespClient#flushAll()}).
 *
 * <p>Registered on a static field, it is reachable from every test, with the objects that inject faults:
 * <pre>{@code
 * class RedisStoreOutageTest {
 *
 *     @RegisterExtension
 *     static final RedisExtension redis = RedisExtension.standalone();
 *
 *     @Test
 *     void restartedRedis_isUsedAgain() {
 *         RedisStore store = RedisStore.builder().uri(redis.uri()).build();
 *         redis.server().kill();       // or stop(), restart(), pause(Duration.ofMillis(1500))
 *         redis.server().restart();    // same port, empty data
 *         ...
 *     }
 * }
 * }</pre>
 * {@code RedisExtension.sentinel()} and {@code RedisExtension.cluster()} work the same way, with
 * {@link #sentinelTopology()} (e.g. {@code failover()}) and {@link #clusterTopology()} (e.g.
 * {@code masterForSlot(slot)}) for their processes, and {@link #addresses()} for a client's config.
 *
 * <p>For one standalone server, the annotation does, with the server as a parameter of any test,
 * lifecycle method or constructor of the class:
 * <pre>{@code
 * @ExtendWith(RedisExtension.class)
 * class CounterTest {
 *     @Test
 *     void counts(RedisServer redis) {
 *         try (RespClient client = RespClient.connect(redis.host(), redis.port())) { ... }
 *     }
 * }
 * }</pre>
 * Parameters of type {@link RedisSentinelTopology} and {@link RedisClusterTopology} are resolved the same
 * way by the registered kinds. {@code @Nested} classes share the Redis of the class that declares the
 * extension. The field must be static: on an instance field JUnit never calls the extension before the
 * class's tests, and the first test fails with an {@link ExtensionConfigurationException} that says so.
 * A field in an abstract base class serves its subclasses one after another, each with a fresh Redis;
 * such subclasses must not run in parallel with each other.
 */
public final class RedisExtension implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback,
        ParameterResolver {

    private final Kind kind;
    // set in beforeAll by the class that declares the extension; nested classes find it running
    private volatile AutoCloseable running;
    private volatile String startedBy;

    /** A standalone server; the constructor that {@code @ExtendWith(RedisExtension.class)} calls. */
    public RedisExtension() {
        this(Kind.STANDALONE);
    }

    private RedisExtension(Kind kind) {
        this.kind = kind;
    }

    /** One standalone server ({@link RedisServer#start()}). */
    public static RedisExtension standalone() {
        return new RedisExtension(Kind.STANDALONE);
    }

    /** A master, a replica and three sentinels ({@link RedisSentinelTopology#start()}). */
    public static RedisExtension sentinel() {
        return new RedisExtension(Kind.SENTINEL);
    }

    /** Three cluster masters sharing the 16384 slots ({@link RedisClusterTopology#start()}). */
    public static RedisExtension cluster() {
        return new RedisExtension(Kind.CLUSTER);
    }

    /**
     * The standalone server, e.g. to {@link RedisServer#kill() kill} or {@link RedisServer#pause pause} it.
     *
     * @throws IllegalStateException if this is not {@link #standalone()}, or outside the class's tests
     */
    public RedisServer server() {
        return running(Kind.STANDALONE, RedisServer.class);
    }

    /**
     * The sentinel topology, e.g. for {@link RedisSentinelTopology#failover() failover()}.
     *
     * @throws IllegalStateException if this is not {@link #sentinel()}, or outside the class's tests
     */
    public RedisSentinelTopology sentinelTopology() {
        return running(Kind.SENTINEL, RedisSentinelTopology.class);
    }

    /**
     * The cluster, e.g. for {@link RedisClusterTopology#masterForSlot(int) masterForSlot(slot)}.
     *
     * @throws IllegalStateException if this is not {@link #cluster()}, or outside the class's tests
     */
    public RedisClusterTopology clusterTopology() {
        return running(Kind.CLUSTER, RedisClusterTopology.class);
    }

    /**
     * The standalone server's address, {@code redis://127.0.0.1:PORT}.
     *
     * @throws IllegalStateException if this is not {@link #standalone()}, or outside the class's tests
     */
    public String uri() {
        return server().uri();
    }

    /**
     * What a client connects to, as {@code redis://127.0.0.1:PORT}: the server (one address), the three
     * sentinels (the master's name is {@link RedisSentinelTopology#DEFAULT_MASTER_NAME}), or the three
     * cluster nodes.
     *
     * @throws IllegalStateException outside the class's tests
     */
    public List<String> addresses() {
        return switch (kind) {
            case STANDALONE -> List.of(uri());
            case SENTINEL -> sentinelTopology().sentinelAddresses();
            case CLUSTER -> clusterTopology().nodeAddresses();
        };
    }

    /** Starts the Redis, unless an enclosing class (of a {@code @Nested} one) already has. */
    @Override
    public void beforeAll(ExtensionContext context) {
        if (running == null) {
            running = kind.start();
            startedBy = context.getUniqueId();
        }
    }

    /** Closes the Redis after the class that started it; nested classes leave it running. */
    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        AutoCloseable redis = running;
        if (redis != null && context.getUniqueId().equals(startedBy)) {
            running = null;
            startedBy = null;
            redis.close();
        }
    }

    /** Fails the test if beforeAll never ran, which is what an instance field gets. */
    @Override
    public void beforeEach(ExtensionContext context) {
        if (running == null) {
            throw new ExtensionConfigurationException("RedisExtension in " + context.getRequiredTestClass().getName()
                    + " has no Redis running: register it on a static field, as JUnit calls beforeAll only there");
        }
    }

    /** True for a parameter of this kind's type: RedisServer, RedisSentinelTopology or RedisClusterTopology. */
    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == kind.type;
    }

    /** The running server or topology. */
    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        AutoCloseable redis = running;
        if (redis == null) {
            throw new ParameterResolutionException(kind.description + " is not running for "
                    + parameter.getParameter() + ": register RedisExtension on a static field");
        }
        return redis;
    }

    @Override
    public String toString() {
        AutoCloseable redis = running;
        return "RedisExtension[" + kind.description + (redis == null ? ", not running" : ", " + redis) + "]";
    }

    private <T> T running(Kind wanted, Class<T> type) {
        if (kind != wanted) {
            throw new IllegalStateException("this RedisExtension runs " + kind.description + ", not "
                    + wanted.description);
        }
        AutoCloseable redis = running;
        if (redis == null) {
            throw new IllegalStateException(kind.description + " is not running: RedisExtension starts it before"
                    + " the first test of its class and closes it after the last");
        }
        return type.cast(redis);
    }

    private enum Kind {
        STANDALONE("a standalone server", RedisServer.class),
        SENTINEL("a sentinel topology", RedisSentinelTopology.class),
        CLUSTER("a cluster", RedisClusterTopology.class);

        final String description;
        final Class<? extends AutoCloseable> type;

        Kind(String description, Class<? extends AutoCloseable> type) {
            this.description = description;
            this.type = type;
        }

        AutoCloseable start() {
            return switch (this) {
                case STANDALONE -> RedisServer.start();
                case SENTINEL -> RedisSentinelTopology.start();
                case CLUSTER -> RedisClusterTopology.start();
            };
        }
    }
}
