package dev.quota.demo;

import dev.quota.core.QuotaConfig;
import dev.quota.core.QuotaService;
import dev.quota.core.QuotaStack;
import dev.quota.core.config.ConfigReloader;
import dev.quota.redis.InstanceRegistry;
import dev.quota.redis.RedisStore;
import dev.quota.core.resilience.CircuitBreakerStore;
import dev.quota.micrometer.MicrometerQuotaListener;
import dev.quota.micrometer.TopCustomerGauges;
import dev.quota.testkit.RedisServer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import org.jspecify.annotations.Nullable;

/**
 * The running demo: one Redis (named, or a private redis-server it started) and one or more HTTP
 * instances, each with its own {@link QuotaService} and Redisson client, as separate processes of
 * a service would have. Three instances sharing a customer with capacity 30 admit 30 requests in
 * total, not 30 each.
 *
 * <p>Each instance also shows the library's operational side: its Redis store sits behind a
 * {@link CircuitBreakerStore} (a Redis outage is answered by each limit's failure policy at once,
 * not after a timeout per request), counts the live instances in Redis ({@link InstanceRegistry})
 * for the {@code local} policy, publishes metrics at {@code /metrics} on a management listener
 * bound to 127.0.0.1 (not on the API port), reloads an edited config file ({@link ConfigReloader})
 * and, given a token, serves the admin API at {@code /admin}.
 */
public final class DemoApp implements AutoCloseable {

    private final @Nullable RedisServer privateRedis;
    private final String redisUri;
    private final List<ApiServer> servers;
    private final CountDownLatch closed = new CountDownLatch(1);
    private boolean closing;

    private DemoApp(@Nullable RedisServer privateRedis, String redisUri, List<ApiServer> servers) {
        this.privateRedis = privateRedis;
        this.redisUri = redisUri;
        this.servers = List.copyOf(servers);
    }

    /**
     * What to start.
     *
     * @param config    the quota config; a version of 0 is replaced by the clock's millis, the same
     *                  for every instance
     * @param redisUri  the Redis to use, or null to start a private redis-server
     * @param host      the address to bind
     * @param port      the first instance's port, the others follow; 0: a free port for each
     * @param instances how many instances, {@code >= 1}
     * @param redisTimeout how long one Redis command may take (the library's default is 2 s); lost
     *                  compare-and-swap races go by the library's retry budget of 1,000
     * @param clock     the clock of every quota service and store (tests freeze it); the circuit
     *                  breaker keeps real time, so that it closes again under a frozen clock
     * @param configFile the file {@code config} was loaded from, watched for edits (every 500 ms), or
     *                  null when there is none to watch (the bundled classpath config)
     * @param adminToken the admin API's bearer token (strong: see {@code AdminTokens}), or null to
     *                  leave it off
     * @param managementPort the first instance's metrics port on 127.0.0.1, the others follow; 0:
     *                  a free port for each
     */
    public record Settings(QuotaConfig config, @Nullable String redisUri, String host, int port, int instances,
                           Duration redisTimeout, Clock clock, @Nullable Path configFile,
                           @Nullable String adminToken, int managementPort) {

        /** @throws IllegalArgumentException if instances < 1 or the port is out of range */
        public Settings {
            Objects.requireNonNull(config, "config");
            Objects.requireNonNull(host, "host");
            Objects.requireNonNull(redisTimeout, "redisTimeout");
            Objects.requireNonNull(clock, "clock");
            if (instances < 1) {
                throw new IllegalArgumentException("instances must be >= 1 but was " + instances);
            }
            if (port < 0 || port > 65_535) {
                throw new IllegalArgumentException("port must be between 0 and 65535 but was " + port);
            }
            if (managementPort < 0 || managementPort > 65_535) {
                throw new IllegalArgumentException("managementPort must be between 0 and 65535 but was "
                        + managementPort);
            }
        }

        /** Without a config file to watch and without the admin API; metrics on free ports. */
        public Settings(QuotaConfig config, @Nullable String redisUri, String host, int port, int instances,
                        Duration redisTimeout, Clock clock) {
            this(config, redisUri, host, port, instances, redisTimeout, clock, null, null, 0);
        }
    }

    /**
     * Starts Redis (if none is named) and every instance. On failure whatever was started is
     * stopped again.
     *
     * @throws dev.quota.core.QuotaStoreException if Redis cannot be reached
     * @throws jakarta.ws.rs.ProcessingException  if a port cannot be bound
     * @throws IllegalStateException              if the private redis-server does not come up
     */
    public static DemoApp start(Settings settings) {
        QuotaConfig config = settings.config().version() > 0 ? settings.config()
                : settings.config().withVersion(settings.clock().millis());
        RedisServer privateRedis = settings.redisUri() == null ? RedisServer.start() : null;
        String uri = privateRedis != null ? privateRedis.uri() : settings.redisUri();
        List<ApiServer> servers = new ArrayList<>();
        try {
            for (int i = 0; i < settings.instances(); i++) {
                int port = settings.port() == 0 ? 0 : settings.port() + i;
                int managementPort = settings.managementPort() == 0 ? 0 : settings.managementPort() + i;
                servers.add(startInstance(settings, config, uri, port, managementPort));
            }
        } catch (RuntimeException e) {
            new DemoApp(privateRedis, uri, servers).close();
            throw e;
        }
        return new DemoApp(privateRedis, uri, servers);
    }

    /** One instance: its own Redis client, breaker, registry, metrics and quota service. */
    private static ApiServer startInstance(Settings settings, QuotaConfig config, String uri, int port,
                                           int managementPort) {
        RedisStore redis = RedisStore.builder().uri(uri).clock(settings.clock()).timeout(settings.redisTimeout())
                .build();
        InstanceRegistry instances;
        try {
            instances = InstanceRegistry.builder(redis.client()).build();
        } catch (RuntimeException e) {
            redis.close();
            throw e;
        }
        PrometheusMeterRegistry metrics = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        MicrometerQuotaListener meters = new MicrometerQuotaListener(metrics);
        // quota_leases_held of every in-flight limit from the start, at zero
        meters.registerInFlight(config);
        // the circuit breaker keeps real time, not the settings' clock: a frozen test clock would keep it open
        QuotaStack.Builder stack = QuotaStack.builder(redis)
                .healthCheck(redis::ping)
                // for the LOCAL failure policy: each live instance enforces 1/n of every limit
                .liveInstances(instances::liveInstances, instances::rank)
                // a killed instance's in-flight leases come back once the registry declares it dead
                .leaseHolder(instances::leaseHolder)
                .companion(instances)
                .companion(metrics::close)
                .service(service -> service.config(config).clock(settings.clock())
                        .listener(meters));
        Path file = settings.configFile();
        if (file != null) {
            stack.watch(file, Duration.ofMillis(500));
        }
        QuotaStack built = stack.build();
        TopCustomerGauges.register(metrics, built.service().admin());
        // quota_leased_tokens_held, and quota_leased_tokens_total of every leased limit at zero
        meters.registerLeasing(built.service());
        try {
            return ApiServer.start(new ApiServer.Parts(built, metrics, settings.adminToken(), settings.clock(),
                    redis.describe()), settings.host(), port, managementPort);
        } catch (RuntimeException e) {
            built.close();
            throw e;
        }
    }

    /** The base URI of each instance, e.g. {@code http://127.0.0.1:8080/}. */
    public List<URI> baseUris() {
        return servers.stream().map(ApiServer::baseUri).toList();
    }

    /**
     * The management listener of each instance, e.g. {@code http://127.0.0.1:9080/}, where
     * {@code /metrics} is; in the order of {@link #baseUris()}.
     */
    public List<URI> managementUris() {
        return servers.stream().map(ApiServer::managementUri).toList();
    }

    /** The write bounds of the first instance, for tests that watch what a client holds. */
    WriteBounds writeBounds() {
        return servers.get(0).writeBounds();
    }

    /** The quota service of each instance, in the order of {@link #baseUris()}. */
    public List<QuotaService> services() {
        return servers.stream().map(ApiServer::service).toList();
    }

    /**
     * {@code redis standalone redis://127.0.0.1:41234}, as the Redis store describes itself (the
     * circuit breaker in front of it is the same on every instance).
     */
    public String storeDescription() {
        return servers.get(0).redisDescription();
    }

    /** Whether the instances serve the admin API at {@code /admin}. */
    public boolean adminEnabled() {
        return servers.get(0).adminEnabled();
    }

    /** The Redis every instance uses. */
    public String redisUri() {
        return redisUri;
    }

    /** Whether the demo started the Redis itself (and stops it on close). */
    public boolean ownsRedis() {
        return privateRedis != null;
    }

    /** Blocks until {@link #close()} has finished. */
    public void awaitClosed() throws InterruptedException {
        closed.await();
    }

    /** Stops the HTTP servers, closes the quota services, then stops the private Redis. Idempotent. */
    @Override
    public void close() {
        synchronized (this) {
            if (closing) {
                return;
            }
            closing = true;
        }
        try {
            // Each server drains its requests and its Redisson client takes a moment to shut
            // down: close the instances side by side.
            List<Thread> closers = new ArrayList<>();
            for (ApiServer server : servers) {
                Thread closer = new Thread(server::close, "quota-demo-close-" + server.baseUri().getPort());
                closer.start();
                closers.add(closer);
            }
            for (Thread closer : closers) {
                closer.join();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            if (privateRedis != null) {
                privateRedis.close();
            }
            closed.countDown();
        }
    }
}
