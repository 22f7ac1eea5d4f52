package dev.quota.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Customer;
import dev.quota.core.QuotaListener;
import dev.quota.core.Settlement;
import dev.quota.jaxrs.Quota;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.control.RequestContextController;
import jakarta.enterprise.inject.spi.CDI;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PathParam;

import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.core.MediaType;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.glassfish.grizzly.http.server.HttpServer;
import org.glassfish.jersey.grizzly2.httpserver.GrizzlyHttpServerFactory;
import org.glassfish.jersey.server.ResourceConfig;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The provider on a real Jakarta REST runtime (Jersey on Grizzly) beside a CDI container (Weld
 * SE): registered as a scanning runtime would find it, it enforces the quotas of the service the
 * extension built, with the same headers and problems as a hand-wired {@code QuotaFeature}.
 */
class JerseyProvidersTest {

    static final String TOKEN = "0123456789abcdefABCDEF0123456789-_token";

    @TempDir
    Path dir;

    /**
     * HTTP/1.1: Jersey on Grizzly drops {@code Content-Type} from its answers to requests that offer
     * an HTTP/2 upgrade (Java's client does by default), whatever the application sets.
     */
    final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @Test
    void theProvider_enforcesThePlans_withRateLimitHeadersAnd429Problems() throws Exception {
        try (SystemProperties ignored = new SystemProperties();
             Running running = start()) {
            HttpResponse<String> first = get(running, "/accounts", CdiWiringTest.PLANS_KEY, null);
            HttpResponse<String> second = get(running, "/accounts", CdiWiringTest.PLANS_KEY, null);
            HttpResponse<String> third = get(running, "/accounts", CdiWiringTest.PLANS_KEY, null);

            assertThat(first.statusCode()).isEqualTo(200);
            assertThat(first.headers().firstValue("RateLimit-Policy")).hasValue("\"small-burst\";q=2;w=3600");
            assertThat(second.headers().firstValue("RateLimit")).hasValueSatisfying(v -> assertThat(v).contains("r=0;"));
            assertThat(third.statusCode()).as(third.headers() + " " + third.body()).isEqualTo(429);
            assertThat(third.headers().firstValue("Retry-After")).isPresent();
            assertThat(third.headers().firstValue("Content-Type")).hasValue("application/problem+json");
            assertThat(third.body()).startsWith("{\"type\":\"urn:quota:problem:quota-exceeded\"");
        }
    }

    @Test
    void anonymousCallers_areCountedByTheTcpPeer_withoutCode() throws Exception {
        try (SystemProperties ignored = new SystemProperties();
             Running running = start()) {
            HttpResponse<String> anonymous = get(running, "/accounts", null, null);

            assertThat(anonymous.statusCode()).isEqualTo(200);
            assertThat(anonymous.headers().firstValue("RateLimit-Policy")).hasValue("\"anonymous-burst\";q=3;w=3600");
        }
    }

    @Test
    void anInFlightLimitFromThePlansFile_refusesASecondRequestWhileOneRuns_andTheEndOfTheFirstFreesIt()
            throws Exception {
        TestResource.arrived = new CountDownLatch(1);
        TestResource.gate = new CountDownLatch(1);
        try (SystemProperties ignored = new SystemProperties();
             Running running = start()) {
            CompletableFuture<HttpResponse<String>> first = http.sendAsync(HttpRequest.newBuilder(
                    running.base.resolve("held")).GET().build(), HttpResponse.BodyHandlers.ofString());
            assertThat(TestResource.arrived.await(30, TimeUnit.SECONDS)).as("the first request runs").isTrue();

            HttpResponse<String> second = get(running, "/accounts", null, null);

            assertThat(second.statusCode()).isEqualTo(429);
            assertThat(second.headers().firstValue("Quota-In-Flight-Limit")).hasValue("1");
            assertThat(second.headers().firstValue("Retry-After")).isEmpty();
            assertThat(second.body()).startsWith("{\"type\":\"urn:quota:problem:too-many-in-flight\"");
            TestResource.gate.countDown();
            assertThat(first.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
            assertThat(get(running, "/accounts", null, null).statusCode()).as("its lease is back").isEqualTo(200);
        } finally {
            TestResource.gate.countDown();
        }
    }

    @Test
    void theRequestView_namesTheCallerTheFilterCounted() throws Exception {
        try (SystemProperties ignored = new SystemProperties();
             Running running = start()) {
            HttpResponse<String> me = get(running, "/me", CdiWiringTest.PLANS_KEY, null);

            assertThat(me.statusCode()).isEqualTo(200);
            assertThat(me.body()).isEqualTo("FROM-PLANS ALLOWED");
        }
    }

    @Test
    void quotaRequestSettle_changesTheEstimateToTheActualCost_onceTheResponseHasBeenWritten() throws Exception {
        Settles.settled.clear();
        try (SystemProperties ignored = new SystemProperties();
             Running running = start(Settles.class)) {
            HttpResponse<String> report = get(running, "/report/1", CdiWiringTest.PLANS_KEY, null);
            Settlement settlement = Settles.settled.poll(10, TimeUnit.SECONDS);
            HttpResponse<String> next = get(running, "/accounts", CdiWiringTest.PLANS_KEY, null);

            assertThat(report.statusCode()).isEqualTo(200);
            assertThat(settlement).isEqualTo(new Settlement(Settlement.Outcome.GIVEN_BACK, 2, 1, -1));
            // burst 2: the report cost 1 once settled, so there is room for one more
            assertThat(next.statusCode()).isEqualTo(200);
            assertThat(next.headers().firstValue("RateLimit")).hasValueSatisfying(v -> assertThat(v).contains("r=0;"));
        }
    }

    @Test
    void theAdminApi_isOnWithATokenFile_andAnswersOnlyThatToken() throws Exception {
        Path token = dir.resolve("admin.token");
        Files.createFile(token, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(token, TOKEN + "\n");
        try (SystemProperties ignored = new SystemProperties().set("quota.admin.token-file", token.toString());
             Running running = start()) {
            HttpResponse<String> ok = get(running, "/admin/customers/FROM-PLANS", null, "Bearer " + TOKEN);
            HttpResponse<String> wrong = get(running, "/admin/customers/FROM-PLANS", null, "Bearer " + TOKEN + "x");

            assertThat(ok.statusCode()).isEqualTo(200);
            assertThat(ok.body()).contains("\"customer\":\"FROM-PLANS\"");
            assertThat(wrong.statusCode()).isEqualTo(401);
        }
    }

    @Test
    void withoutATokenTheAdminApiIsNotServed() throws Exception {
        try (SystemProperties ignored = new SystemProperties();
             Running running = start()) {
            assertThat(get(running, "/admin/customers/FROM-PLANS", null, "Bearer " + TOKEN).statusCode())
                    .isEqualTo(404);
        }
    }

    private HttpResponse<String> get(Running running, String path, String key, String authorization)
            throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(running.base.resolve(path.substring(1))).GET();
        if (key != null) {
            request.header("X-API-Key", key);
        }
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static Running start(Class<?>... beans) {
        WeldContainer container = CdiWiringTest.weld(beans).initialize();
        ResourceConfig app = new ResourceConfig(TestResource.class, RequestScope.class, QuotaProviders.class);
        HttpServer server = GrizzlyHttpServerFactory.createHttpServer(URI.create("http://127.0.0.1:0/"), app);
        return new Running(container, server, URI.create("http://127.0.0.1:"
                + server.getListener("grizzly").getPort() + "/"));
    }

    private record Running(WeldContainer container, HttpServer server, URI base) implements AutoCloseable {
        @Override
        public void close() {
            server.shutdownNow();
            container.shutdown();
        }
    }

    /** A resource of the application. */
    @jakarta.ws.rs.Path("/")
    public static class TestResource {
        static volatile CountDownLatch arrived = new CountDownLatch(0);
        static volatile CountDownLatch gate = new CountDownLatch(0);

        @GET
        @jakarta.ws.rs.Path("accounts")
        public String accounts() {
            return "ok";
        }

        /** A report whose cost, rule {@code report}'s estimate of 2, is settled to its rows. */
        @GET
        @jakarta.ws.rs.Path("report/{rows}")
        @Quota("report")
        public String report(@PathParam("rows") int rows) {
            CDI.current().select(QuotaRequest.class).get().settle(rows);
            return rows + " rows";
        }

        @GET
        @jakarta.ws.rs.Path("held")
        public String held() throws InterruptedException {
            arrived.countDown();
            return gate.await(30, TimeUnit.SECONDS) ? "done" : "the test never let it finish";
        }

        @GET
        @jakarta.ws.rs.Path("me")
        @Produces(MediaType.TEXT_PLAIN)
        public String me() {
            QuotaRequest quota = CDI.current().select(QuotaRequest.class).get();
            Customer customer = quota.customer();
            return (customer == null ? "nobody" : customer.id()) + " "
                    + (quota.decision() == null ? "undecided" : quota.decision().outcome());
        }
    }

    /** The settles the service tells its listeners, as an application's listener bean. */
    @ApplicationScoped
    public static class Settles implements QuotaListener {
        static final BlockingQueue<Settlement> settled = new LinkedBlockingQueue<>();

        @Override
        public void onSettle(Settlement settlement) {
            settled.add(settlement);
        }
    }

    /**
     * CDI's request scope around each request, as a server does it (Weld SE alone has none for
     * HTTP requests).
     */
    @Priority(Priorities.AUTHENTICATION - 200)
    public static class RequestScope implements ContainerRequestFilter, ContainerResponseFilter {
        private static final ThreadLocal<RequestContextController> CONTROLLER = new ThreadLocal<>();

        @Override
        public void filter(ContainerRequestContext request) {
            RequestContextController controller = CDI.current().select(RequestContextController.class).get();
            controller.activate();
            CONTROLLER.set(controller);
        }

        @Override
        public void filter(ContainerRequestContext request, ContainerResponseContext response) {
            RequestContextController controller = CONTROLLER.get();
            if (controller != null) {
                controller.deactivate();
                CONTROLLER.remove();
            }
        }
    }
}
