package dev.quota.jaxrs;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.function.Consumer;
import org.glassfish.grizzly.http.server.HttpServer;
import org.glassfish.jersey.grizzly2.httpserver.GrizzlyHttpServerFactory;
import org.glassfish.jersey.server.ResourceConfig;
import org.glassfish.jersey.server.ServerProperties;

/** A Jersey application on Grizzly on a free loopback port, and an HTTP client for it. */
public final class TestServer implements AutoCloseable {

    private static final HttpClient CLIENT = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    private final HttpServer server;
    private final URI base;

    private TestServer(HttpServer server) {
        this.server = server;
        this.base = URI.create("http://127.0.0.1:" + server.getListener("grizzly").getPort());
    }

    /** Starts the test resources with {@code feature}, plus whatever {@code customizer} registers. */
    public static TestServer start(QuotaFeature feature, Consumer<ResourceConfig> customizer) {
        ResourceConfig config = new ResourceConfig(TestResources.Accounts.class, TestResources.Transfers.class,
                TestResources.WhoAmI.class, TestResources.Health.class)
                .register(feature)
                .property(ServerProperties.WADL_FEATURE_DISABLE, true);
        customizer.accept(config);
        HttpServer server = GrizzlyHttpServerFactory.createHttpServer(URI.create("http://127.0.0.1:0/"), config);
        return new TestServer(server);
    }

    public static TestServer start(QuotaFeature feature) {
        return start(feature, config -> { });
    }

    /** A request to {@code path} on this server. */
    public HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(10));
    }

    /** GET {@code path} with header pairs {@code name, value, ...}. */
    public HttpResponse<String> get(String path, String... headers) {
        return send(request(path).headers(headers.length == 0 ? new String[] {"Accept", "*/*"} : headers).GET());
    }

    public HttpResponse<String> send(HttpRequest.Builder request) {
        try {
            return CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public int port() {
        return base.getPort();
    }

    @Override
    public void close() {
        server.shutdownNow();
    }
}
