package dev.quota.demo;

import dev.quota.core.QuotaService;
import dev.quota.jaxrs.QuotaAdminResource;
import dev.quota.jaxrs.QuotaFeature;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import jakarta.ws.rs.ProcessingException;
import java.io.IOException;
import java.net.URI;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.glassfish.grizzly.http.server.HttpHandlerRegistration;
import org.glassfish.grizzly.http.server.HttpServer;
import org.glassfish.grizzly.threadpool.ThreadPoolConfig;
import org.glassfish.hk2.utilities.binding.AbstractBinder;
import org.glassfish.jersey.grizzly2.httpserver.GrizzlyHttpContainer;
import org.glassfish.jersey.grizzly2.httpserver.GrizzlyHttpServerFactory;
import org.glassfish.jersey.jackson.JacksonFeature;
import org.glassfish.jersey.server.ContainerFactory;
import org.glassfish.jersey.server.ResourceConfig;
import org.glassfish.jersey.server.ServerProperties;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One instance of the bank API: Jersey on a Grizzly HTTP server, limited by {@link QuotaFeature}
 * with its own {@link QuotaService}. Beside the API: {@code GET /metrics}, answered by
 * {@link MetricsHandler} before Jersey so that no quota filter ever sees it (the feature binds a
 * filter to every Jersey resource method), and, with a token, {@link QuotaAdminResource} at {@code /admin}, which the
 * feature skips by design.
 */
final class ApiServer implements AutoCloseable {

    /** HTTP worker threads per instance. */
    private static final int WORKERS = 64;

    private static final Logger log = LoggerFactory.getLogger(ApiServer.class);

    private final HttpServer server;
    private final Parts parts;
    private final URI baseUri;

    private ApiServer(HttpServer server, Parts parts, URI baseUri) {
        this.server = server;
        this.parts = parts;
        this.baseUri = baseUri;
    }

    /**
     * What an instance serves with.
     *
     * @param service          decides every API request; closed with the server
     * @param metrics          the registry the service's listener publishes to, scraped at {@code /metrics}
     * @param adminToken       the admin API's bearer token, or null for no admin API
     * @param redisDescription the Redis store's own description, for the banner
     * @param companions       closed, in order, after the server and before the service (the config
     *                         reloader, the instance registry, the metrics registry)
     */
    record Parts(QuotaService service, PrometheusMeterRegistry metrics, @Nullable String adminToken,
                 String redisDescription, List<AutoCloseable> companions) {
        Parts {
            companions = List.copyOf(companions);
        }
    }

    /**
     * Starts an instance on {@code host:port} (port 0: a free one). The parts are closed with it,
     * but not when this throws.
     *
     * @throws ProcessingException      if the port cannot be bound
     * @throws IllegalArgumentException if the admin token is not acceptable to the admin API
     */
    static ApiServer start(Parts parts, String host, int port) {
        QuotaService service = parts.service();
        Transfers transfers = new Transfers();
        ResourceConfig app = new ResourceConfig(AccountsResource.class, TransfersResource.class, QuotaResource.class)
                .register(new AbstractBinder() {
                    @Override
                    protected void configure() {
                        bind(service).to(QuotaService.class);
                        bind(Accounts.demo()).to(Accounts.class);
                        bind(transfers).to(Transfers.class);
                    }
                })
                .register(JacksonFeature.withoutExceptionMappers())
                // Anonymous callers are counted per TCP peer, which the feature reads from Grizzly itself;
                // X-Forwarded-For counts only from the config's identity.trustedProxies (the bundled
                // config trusts none), read per request so a reload takes effect.
                .register(QuotaFeature.builder(service).build())
                .register(WebApplicationExceptionMapper.class)
                .register(JsonExceptionMapper.class)
                .register(StoreExceptionMapper.class)
                .register(UnexpectedExceptionMapper.class)
                .property(ServerProperties.WADL_FEATURE_DISABLE, true)
                // an error status without entity must not become Grizzly's HTML error page
                .property(ServerProperties.RESPONSE_SET_STATUS_OVER_SEND_ERROR, true);
        String adminToken = parts.adminToken();
        if (adminToken != null) {
            app.register(new QuotaAdminResource(service, adminToken));
        }
        GrizzlyHttpContainer container = ContainerFactory.createContainer(GrizzlyHttpContainer.class, app);
        HttpServer server = GrizzlyHttpServerFactory.createHttpServer(
                URI.create("http://" + host + ":" + port + "/"), (GrizzlyHttpContainer) null, false, null, false);
        server.getServerConfiguration().addHttpHandler(new MetricsHandler(parts.metrics(), container),
                HttpHandlerRegistration.builder().contextPath("").build());
        server.getServerConfiguration().setDefaultErrorPageGenerator(new ProblemErrorPages());
        // The quota filter waits for Redis on the worker thread; Grizzly's default of 2 workers per
        // core would leave the CPU idle while they wait (quota-bench measured 0.37x without this).
        server.getListener("grizzly").getTransport().setWorkerThreadPoolConfig(
                ThreadPoolConfig.defaultConfig().setPoolName("quota-demo-worker").setCorePoolSize(WORKERS)
                        .setMaxPoolSize(WORKERS));
        try {
            server.start();
        } catch (IOException e) {
            server.shutdownNow();
            throw new ProcessingException("cannot listen on " + host + ":" + port + " (" + e.getMessage() + ")", e);
        }
        int boundPort = server.getListener("grizzly").getPort();
        return new ApiServer(server, parts, URI.create("http://" + host + ":" + boundPort + "/"));
    }

    URI baseUri() {
        return baseUri;
    }

    QuotaService service() {
        return parts.service();
    }

    String redisDescription() {
        return parts.redisDescription();
    }

    boolean adminEnabled() {
        return parts.adminToken() != null;
    }

    /** Closes each of {@code resources}, in order, logging rather than throwing a failure. */
    static void closeAll(List<AutoCloseable> resources) {
        for (AutoCloseable resource : resources) {
            try {
                resource.close();
            } catch (Exception e) {
                log.warn("closing {} failed: {}", resource, e.toString());
            }
        }
    }

    /**
     * Stops the server (requests in flight get a second to finish), then the reloader, the
     * instance registry and the metrics, then the quota service and its Redis client.
     */
    @Override
    public void close() {
        try {
            server.shutdown(1, TimeUnit.SECONDS).get(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            // not stopped in time: cut the remaining connections
        } finally {
            server.shutdownNow();
            closeAll(parts.companions());
            parts.service().close();
        }
    }
}
