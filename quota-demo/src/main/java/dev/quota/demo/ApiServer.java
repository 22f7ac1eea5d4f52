package dev.quota.demo;

import dev.quota.core.QuotaService;
import dev.quota.core.QuotaStack;
import dev.quota.jaxrs.ClientAddress;
import dev.quota.jaxrs.QuotaFeature;
import dev.quota.jaxrs.admin.QuotaAdminResource;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import jakarta.ws.rs.ProcessingException;
import java.net.URI;
import java.time.Clock;
import java.util.List;
import org.eclipse.jetty.http.HttpCompliance;
import org.eclipse.jetty.http2.WindowRateControl;
import org.eclipse.jetty.http2.server.HTTP2CServerConnectionFactory;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.glassfish.hk2.utilities.binding.AbstractBinder;
import org.glassfish.jersey.jackson.JacksonFeature;
import org.glassfish.jersey.jetty.JettyHttpContainer;
import org.glassfish.jersey.server.ContainerFactory;
import org.glassfish.jersey.server.ResourceConfig;
import org.glassfish.jersey.server.ServerProperties;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One instance of the bank API: Jersey on a Jetty 12 server, limited by {@link QuotaFeature} with
 * its own {@link QuotaService}, behind {@link HostCheckHandler} (a malformed {@code Host} is a 400
 * before Jersey sees it); with a token, {@link QuotaAdminResource} at {@code /admin}, which no
 * quota limits: the feature checks its token instead and throttles wrong tokens per client address.
 *
 * <p>{@code GET /metrics} is not on this server: a second Jetty server, the management listener,
 * bound to 127.0.0.1 whatever {@code host} the API binds to, serves it ({@link MetricsHandler});
 * the API port answers 404 there.
 *
 * <p>Both listeners speak HTTP/1.1 and HTTP/2 cleartext (an {@code Upgrade: h2c} offer on a request
 * without a body, or the HTTP/2 preface), with limits one client cannot get past
 * ({@link #httpConfiguration}, {@link #connector}): a body must arrive at
 * {@value #MIN_BODY_BYTES_PER_SECOND} bytes a second or more, a silent connection is closed after
 * {@value #IDLE_TIMEOUT_MILLIS} ms, a header block over 8 KB is refused 431 on its own stream
 * ({@link HeaderSizeLimit}), and an
 * HTTP/2 connection that sends more than {@value #MAX_CONTROL_FRAMES_PER_SECOND} resets (or other
 * control frames) a second is closed.
 *
 * <p>A client that does not read its answers (an HTTP/2 flow-control window left at zero, a socket
 * read a byte at a time) holds no worker: small answers are written behind the worker, and every
 * write the client does not take within the write timeout resets its stream; a connection and an
 * address may have only a few writes waiting at once ({@link WriteBounds}).
 */
final class ApiServer implements AutoCloseable {

    /** Threads per instance: 64 for requests, plus the connector's acceptor and selectors. */
    private static final int WORKERS = 64;
    private static final int ACCEPTORS = 1;
    private static final int SELECTORS = 2;
    /**
     * The least rate a request body may arrive at once it has started: a transfer of about 100
     * bytes sent a byte every 5 s ends with 408 at its second byte instead of holding a thread.
     */
    static final long MIN_BODY_BYTES_PER_SECOND = 1_024;
    /** A connection on which nothing arrives for this long is closed (a body that stops altogether). */
    static final long IDLE_TIMEOUT_MILLIS = 10_000;
    /**
     * HTTP/2 resets, pings, settings and other control frames one connection may send a second;
     * past that Jetty sends GOAWAY (ENHANCE_YOUR_CALM) and closes it, so a rapid reset flood ends
     * within a second having started at most about this many requests.
     */
    static final int MAX_CONTROL_FRAMES_PER_SECOND = 100;
    /**
     * How large an HTTP/2 header block Jetty decodes: past {@link HeaderSizeLimit#MAX_BYTES} the
     * request is answered 431 on its stream; past this the connection is closed.
     */
    static final int HTTP2_DECODE_BYTES = 64 * 1024;
    /**
     * Requests one HTTP/2 connection may have open at once (Jetty's default is 128); past it Jetty
     * refuses new streams with RST_STREAM (REFUSED_STREAM). Of these, at most
     * {@link WriteBounds#MAX_WAITING_PER_CONNECTION} may wait for the client to take a write.
     */
    static final int MAX_CONCURRENT_STREAMS = 32;

    private static final Logger log = LoggerFactory.getLogger(ApiServer.class);

    /** The address the management listener binds to, whatever the API's: this machine only. */
    static final String MANAGEMENT_HOST = "127.0.0.1";

    private final Server server;
    private final Server management;
    private final Parts parts;
    private final URI baseUri;
    private final URI managementUri;

    private ApiServer(Server server, Server management, Parts parts, URI baseUri, URI managementUri) {
        this.server = server;
        this.management = management;
        this.parts = parts;
        this.baseUri = baseUri;
        this.managementUri = managementUri;
    }

    /**
     * What an instance serves with.
     *
     * @param stack            the quota service over its store, breaker, instance registry, reloader
     *                         and metrics; closed after the server
     * @param metrics          the registry the service's listener publishes to, scraped at {@code /metrics}
     * @param adminToken       the admin API's bearer token, or null for no admin API
     * @param clock            the admin API's throttle and audit sampling run on it
     * @param redisDescription the Redis store's own description, for the banner
     */
    record Parts(QuotaStack stack, PrometheusMeterRegistry metrics, @Nullable String adminToken, Clock clock,
                 String redisDescription) {

        /** The service that decides every API request. */
        QuotaService service() {
            return stack.service();
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
                RatesResource.class, ReportsResource.class)
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
                // Anonymous callers are counted per TCP peer, which the feature reads from Jetty itself;
                // X-Forwarded-For counts only from the config's identity.trustedProxies (the bundled
                // config trusts none), read per request so a reload takes effect.
                .register(QuotaFeature.builder(service).build())
                .register(WebApplicationExceptionMapper.class)
                .register(JsonExceptionMapper.class)
                .register(StoreExceptionMapper.class)
                .register(UnexpectedExceptionMapper.class)
                .property(ServerProperties.WADL_FEATURE_DISABLE, true);
        String adminToken = parts.adminToken();
        if (adminToken != null) {
            // the same address as the quota filter's: the connection's peer
            app.register(QuotaAdminResource.builder(service, adminToken).clientAddress(ClientAddress.peer())
                    .clock(parts.clock()).build());
        }
        JettyHttpContainer container = ContainerFactory.createContainer(JettyHttpContainer.class, app);
        Server server = server("quota-demo-worker", WORKERS + ACCEPTORS + SELECTORS + 1);
        ServerConnector api = connector(server, host, port, SELECTORS);
        server.setHandler(new WriteBounds(new HeaderSizeLimit(new HostCheckHandler(container)),
                WriteBounds.writeTimeout(), WriteBounds.MAX_WAITING_PER_CONNECTION, WriteBounds.MAX_WAITING_PER_ADDRESS));
        Server management = server("quota-demo-management", 6);
        ServerConnector metrics = connector(management, MANAGEMENT_HOST, managementPort, 1);
        management.setHandler(new HeaderSizeLimit(new MetricsHandler(parts.metrics())));
        try {
            server.start();
        } catch (Exception e) {
            stopQuietly(server);
            throw new ProcessingException("cannot listen on " + host + ":" + port + " (" + e.getMessage() + ")", e);
        }
        try {
            management.start();
        } catch (Exception e) {
            stopQuietly(server);
            stopQuietly(management);
            throw new ProcessingException("cannot listen on " + MANAGEMENT_HOST + ":" + managementPort
                    + " for metrics (" + e.getMessage() + ")", e);
        }
        return new ApiServer(server, management, parts, URI.create("http://" + host + ":" + api.getLocalPort() + "/"),
                URI.create("http://" + MANAGEMENT_HOST + ":" + metrics.getLocalPort() + "/"));
    }

    /** A Jetty server on a pool of {@code threads}, whose own errors are answered as problems. */
    private static Server server(String name, int threads) {
        QueuedThreadPool pool = new QueuedThreadPool(threads, Math.min(threads, 8));
        pool.setName(name);
        Server server = new Server(pool);
        server.setErrorHandler(new ProblemErrorHandler());
        server.setStopTimeout(1_000);
        return server;
    }

    /** HTTP/1.1 and HTTP/2 cleartext on {@code host:port}, with the limits of {@link #httpConfiguration}. */
    private static ServerConnector connector(Server server, String host, int port, int selectors) {
        HttpConfiguration http = httpConfiguration();
        HttpConfiguration http2 = new HttpConfiguration(http);
        http2.setRequestHeaderSize(HTTP2_DECODE_BYTES);
        HTTP2CServerConnectionFactory h2c = new CleartextHttp2(http2);
        h2c.setRateControlFactory(new WindowRateControl.Factory(MAX_CONTROL_FRAMES_PER_SECOND));
        h2c.setMaxConcurrentStreams(MAX_CONCURRENT_STREAMS);
        ServerConnector connector = new ServerConnector(server, ACCEPTORS, selectors, new HttpConnectionFactory(http),
                h2c);
        connector.setHost(host);
        connector.setPort(port);
        connector.setIdleTimeout(IDLE_TIMEOUT_MILLIS);
        server.addConnector(connector);
        return connector;
    }

    /**
     * What every request must keep to: headers of at most 8 KB (Jetty's default; over HTTP/2 the
     * decoded header list, refused 431 on its stream, the connection's compression state intact),
     * and a body at {@link #MIN_BODY_BYTES_PER_SECOND} or faster.
     */
    static HttpConfiguration httpConfiguration() {
        HttpConfiguration http = new HttpConfiguration();
        http.setSendServerVersion(false);
        // two Host headers reach HostCheckHandler, which says how many there were
        http.setHttpCompliance(HttpCompliance.RFC7230.with("quota-demo", HttpCompliance.Violation.DUPLICATE_HOST_HEADERS));
        http.setMinRequestDataRate(MIN_BODY_BYTES_PER_SECOND);
        return http;
    }

    private static void stopQuietly(Server server) {
        try {
            server.stop();
        } catch (Exception e) {
            log.warn("stopping {} failed: {}", server, e.toString());
        }
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

    /** The write bounds in front of the application, for tests that watch what a client holds. */
    WriteBounds writeBounds() {
        return (WriteBounds) server.getHandler();
    }

    String redisDescription() {
        return parts.redisDescription();
    }

    boolean adminEnabled() {
        return parts.adminToken() != null;
    }

    /**
     * Stops the server (requests in flight get a second to finish) and the management listener,
     * then the reloader, the instance registry and the metrics, then the quota service and its
     * Redis client.
     */
    @Override
    public void close() {
        try {
            server.stop();
        } catch (Exception e) {
            log.warn("the API server did not stop cleanly: {}", e.toString());
        } finally {
            stopQuietly(management);
            parts.stack().close();
        }
    }
}
