package dev.quota.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.QuotaService;
import dev.quota.jaxrs.QuotaFeature;
import jakarta.enterprise.context.Dependent;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.core.MediaType;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.glassfish.grizzly.http.server.HttpServer;
import org.glassfish.jersey.grizzly2.httpserver.GrizzlyHttpServerFactory;
import org.glassfish.jersey.server.ResourceConfig;
import org.glassfish.jersey.server.model.Resource;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.Test;

/**
 * The hybrid wiring: quota-cdi builds the service from settings, and the application registers a
 * {@link QuotaFeature} of its own over that service instead of {@link QuotaProviders} (to pick its
 * client address, as on Helidon). Its requests count as enforced: the resource, a CDI bean whose
 * methods {@link UnenforcedGuard} checks, runs and the limits hold. On Jersey (Grizzly) beside Weld
 * SE; the resource is the container's bean, handed to Jersey, so that its interceptors run.
 */
class OwnFeatureTest {

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    /** A resource of the application, a CDI bean: quota-cdi's guard checks its resource methods. */
    @jakarta.ws.rs.Path("/orders")
    @Dependent
    public static class Orders {
        @GET
        public String list() {
            return "orders";
        }
    }

    @Test
    void aQuotaFeatureTheApplicationBuiltOverQuotaCdisService_enforces_andItsRequestsAreServed() throws Exception {
        try (SystemProperties ignored = new SystemProperties()) {
            WeldContainer container = CdiWiringTest.weld(Orders.class).initialize();
            HttpServer server = null;
            try {
                QuotaService service = container.select(QuotaService.class).get();
                server = serve(container, QuotaFeature.builder(service).build());
                URI base = URI.create("http://127.0.0.1:" + server.getListener("grizzly").getPort() + "/orders");

                HttpResponse<String> first = get(base);
                HttpResponse<String> second = get(base);
                HttpResponse<String> third = get(base);

                assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
                assertThat(first.body()).isEqualTo("orders");
                assertThat(first.headers().firstValue("RateLimit-Policy")).hasValue("\"small-burst\";q=2;w=3600");
                assertThat(second.statusCode()).as(second.body()).isEqualTo(200);
                assertThat(third.statusCode()).as("the plan's burst of 2 holds: " + third.body()).isEqualTo(429);
                assertThat(third.body()).startsWith("{\"type\":\"urn:quota:problem:quota-exceeded\"");
            } finally {
                if (server != null) {
                    server.shutdownNow();
                }
                container.shutdown();
            }
        }
    }

    @Test
    void withoutAnyQuotaFeature_theSameResourceIsRefused503_neverServedUnlimited() throws Exception {
        try (SystemProperties ignored = new SystemProperties()) {
            WeldContainer container = CdiWiringTest.weld(Orders.class).initialize();
            HttpServer server = null;
            try {
                container.select(QuotaService.class).get();
                server = serve(container, null);
                URI base = URI.create("http://127.0.0.1:" + server.getListener("grizzly").getPort() + "/orders");

                HttpResponse<String> answer = get(base);

                assertThat(answer.statusCode()).isEqualTo(503);
                assertThat(answer.body()).contains("\"type\":\"urn:quota:problem:quota-not-enforced\"");
                assertThat(answer.headers().firstValue("RateLimit")).isEmpty();
            } finally {
                if (server != null) {
                    server.shutdownNow();
                }
                container.shutdown();
            }
        }
    }

    /** Jersey serving the container's {@link Orders} bean at {@code /orders}, with {@code feature} when given. */
    private static HttpServer serve(WeldContainer container, Object feature) throws NoSuchMethodException {
        Orders bean = container.select(Orders.class).get();
        Resource.Builder orders = Resource.builder("orders");
        orders.addMethod("GET").produces(MediaType.TEXT_PLAIN_TYPE).handledBy(bean, Orders.class.getMethod("list"));
        ResourceConfig app = new ResourceConfig(JerseyProvidersTest.RequestScope.class).registerResources(orders.build());
        if (feature != null) {
            app.register(feature);
        }
        return GrizzlyHttpServerFactory.createHttpServer(URI.create("http://127.0.0.1:0/"), app);
    }

    private HttpResponse<String> get(URI uri) throws Exception {
        return http.send(HttpRequest.newBuilder(uri).header("X-API-Key", CdiWiringTest.PLANS_KEY).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
