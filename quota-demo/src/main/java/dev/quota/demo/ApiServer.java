package dev.quota.demo;

import dev.quota.core.QuotaService;
import dev.quota.jaxrs.ClientAddress;
import dev.quota.jaxrs.QuotaAdminResource;
import dev.quota.jaxrs.QuotaFeature;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import jakarta.ws.rs.ProcessingException;
import java.io.IOException;
import java.net.URI;
import java.time.Clock;
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
 * with its own {@link QuotaService}, behind {@link HostCheckHandler} (a malformed {@code Host} is
 * a 400 before Jersey sees it); with a token, {@link QuotaAdminResource} at {@code /admin}, which
 * no quota limits: the feature checks its token instead and throttles wrong tokens per client address.
 *
 * <p>{@code GET /metrics} is not on this server: a second Grizzly server, the management listener,
 * bound to 127.0.0.1 whatever {@code host} the API binds to, serves it ({@link MetricsHandler});
 * the API port answers 404 there.
 *
 * <p>Both listeners speak HTTP/1.1 and HTTP/2 cleartext ({@link Http2Cleartext}).
 */
final class ApiServer implements AutoCloseable {

    /** HTTP worker threads per instance. */
    private static final int WORKERS = 64;

    private static final Logger log = LoggerFactory.getLogger(ApiServer.class);

    /** The address the management listener binds to, whatever the API's: this machine only. */
    static final String MANAGEMENT_HOST = "127.0.0.1";

    private final HttpServer server;
    private final HttpServer management;
    private final Parts parts;
    private final URI baseUri;
    private final URI managementUri;

    private ApiServer(HttpServer server, HttpServer management, Parts parts, URI baseUri, URI managementUri) {
        this.server = server;
        this.management = management;
        this.parts = parts;
        this.baseUri = baseUri;
        this.managementUri = managementUri;
    }

    /**
     * What an instance serves with.
     *
     * @param service          decides every API request; closed with the server
     * @param metrics          the registry the service's listener publishes to, scraped at {@code /metrics}
     * @param adminToken       the admin API's bearer token, or null for no admin API
     * @param clock            the admin API's throttle and audit sampling run on it
     * @param redisDescription the Redis store's own description, for the banner
     * @param companions       closed, in order, after the server and before the service (the config
     *                         reloader, the instance registry, the metrics registry)
     */
    record Parts(QuotaService service, PrometheusMeterRegistry metrics, @Nullable String adminToken, Clock clock,
                 String redisDescription, List<AutoCloseable> companions) {
        Parts {
            companions = List.copyOf(companions);
        }
    }

    /**
     * Starts an instance on {@code host:port} and its management listener on
     * {@code 127.0.0.1:managementPort} (port 0: a free one). The parts are closed with it, but not
     * when this throws.
     *
     * @throws ProcessingException      if a port cannot be bound
     * @throws IllegalArgumentException if the admin token is not acceptable to the admin API
     */
    static ApiServer start(Parts parts, String host, int port, int managementPort) {
        QuotaService service = parts.service();
        Transfers transfers = new Transfers();
        Accounts accounts = Accounts.demo();
        ResourceConfig app = new ResourceConfig(AccountsResource.class, TransfersResource.class, QuotaResource.class,
                RatesResource.class)
                .register(new AbstractBinder() {
                    @Override
                    protected void configure() {
                        bind(service).to(QuotaService.class);
                        bind(accounts).to(Accounts.class);
                        bind(transfers).to(Transfers.class);
                    }
                })
                .register(JacksonFeature.withoutExceptionMappers())
                .register(new TransferRequestReader(accounts))
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
            // the same address as the quota filter's: the connection's peer
            app.register(QuotaAdminResource.builder(service, adminToken).clientAddress(ClientAddress.peer())
                    .clock(parts.clock()).build());
        }
        GrizzlyHttpContainer container = ContainerFactory.createContainer(GrizzlyHttpContainer.class, app);
        HttpServer server = GrizzlyHttpServerFactory.createHttpServer(
                URI.create("http://" + host + ":" + port + "/"), (GrizzlyHttpContainer) null, false, null, false);
        // one handler: with two, Grizzly decodes the URI to choose between them and answers a
        // malformed one (/%zz) with a bare 500 before any error page is asked for
        server.getServerConfiguration().addHttpHandler(new HostCheckHandler(container),
                HttpHandlerRegistration.builder().contextPath("").build());
        server.getServerConfiguration().setDefaultErrorPageGenerator(new ProblemErrorPages());
        // The quota filter waits for Redis on the worker thread; Grizzly's default of 2 workers per
        // core would leave the CPU idle while they wait (quota-bench measured 0.37x without this).
        server.getListener("grizzly").getTransport().setWorkerThreadPoolConfig(
                ThreadPoolConfig.defaultConfig().setPoolName("quota-demo-worker").setCorePoolSize(WORKERS)
                        .setMaxPoolSize(WORKERS));
        server.getListener("grizzly").registerAddOn(new Http2Cleartext());
        HttpServer management = GrizzlyHttpServerFactory.createHttpServer(
                URI.create("http://" + MANAGEMENT_HOST + ":" + managementPort + "/"), (GrizzlyHttpContainer) null,
                false, null, false);
        management.getServerConfiguration().addHttpHandler(new MetricsHandler(parts.metrics()),
                HttpHandlerRegistration.builder().contextPath("").build());
        management.getServerConfiguration().setDefaultErrorPageGenerator(new ProblemErrorPages());
        management.getListener("grizzly").getTransport().setWorkerThreadPoolConfig(
                ThreadPoolConfig.defaultConfig().setPoolName("quota-demo-management").setCorePoolSize(2)
                        .setMaxPoolSize(2));
        management.getListener("grizzly").registerAddOn(new Http2Cleartext());
        try {
            server.start();
        } catch (IOException e) {
            server.shutdownNow();
            throw new ProcessingException("cannot listen on " + host + ":" + port + " (" + e.getMessage() + ")", e);
        }
        try {
            management.start();
        } catch (IOException e) {
            server.shutdownNow();
            management.shutdownNow();
            throw new ProcessingException("cannot listen on " + MANAGEMENT_HOST + ":" + managementPort
                    + " for metrics (" + e.getMessage() + ")", e);
        }
        int boundPort = server.getListener("grizzly").getPort();
        int boundManagementPort = management.getListener("grizzly").getPort();
        return new ApiServer(server, management, parts, URI.create("http://" + host + ":" + boundPort + "/"),
                URI.create("http://" + MANAGEMENT_HOST + ":" + boundManagementPort + "/"));
    }

    URI baseUri() {
        return baseUri;
    }

    /** {@code http://127.0.0.1:<port>/}, where {@code /metrics} is. */
    URI managementUri() {
        return managementUri;
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
     * Stops the server (requests in flight get a second to finish) and the management listener,
     * then the reloader, the instance registry and the metrics, then the quota service and its
     * Redis client.
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
            management.shutdownNow();
            closeAll(parts.companions());
            parts.service().close();
        }
    }
}
