package dev.quota.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Concurrency;
import dev.quota.core.Rule;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HEAD;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.container.AsyncResponse;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.Suspended;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.StreamingOutput;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An in-flight limit over HTTP: {@code concurrency: 5} on a rule. The sixth request while five run
 * is answered 429 {@code too-many-in-flight} without {@code Retry-After}; each lease is given back
 * when its response has been written, has none, or failed to be written.
 */
class InFlightLimitHttpTest {

    /** Requests held in the resource (suspended, holding no thread) until the test resumes them. */
    static final List<AsyncResponse> held = new CopyOnWriteArrayList<>();
    static volatile CountDownLatch arrived = new CountDownLatch(0);
    /** How each response of {@link Reports} ended, as {@link ResponseEnd} told it. */
    static final List<ResponseEnd.Ending> endings = new CopyOnWriteArrayList<>();

    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private final Fixture fixture = Fixture.with(TestConfig.standard()
                    .rule(Rule.builder("reports").concurrency(Concurrency.of(5)).build()))
            .application(app -> app.register(Reports.class)).start();

    @BeforeEach
    void reset() {
        endings.clear();
        held.clear();
    }

    @AfterEach
    void stop() {
        finishHeld();
        fixture.close();
    }

    private static void finishHeld() {
        for (AsyncResponse response : held) {
            response.resume("report");
        }
    }

    /** A report taking as long as the test says; bound to rule {@code reports}. */
    @Path("/api/v1/reports")
    @Quota("reports")
    public static final class Reports {

        @GET
        @Path("held")
        public void held(@Suspended AsyncResponse response) {
            held.add(response);
            arrived.countDown();
        }

        @GET
        @Path("quick")
        public String quick(@Context ContainerRequestContext request) {
            ResponseEnd.onEnd(request, endings::add);
            return "report";
        }

        @GET
        @Path("empty")
        public Response empty() {
            return Response.noContent().build();
        }

        @HEAD
        @Path("head")
        public Response head() {
            return Response.ok().build();
        }

        @GET
        @Path("broken")
        public StreamingOutput broken(@Context ContainerRequestContext request) {
            ResponseEnd.onEnd(request, endings::add);
            return out -> {
                out.write(new byte[64 * 1024]); // past the runtime's buffer: the response is committed
                throw new IOException("the client went away");
            };
        }
    }

    private HttpResponse<String> get(String path) {
        return fixture.server.get(path, "X-API-Key", TestConfig.ACME_KEY);
    }

    @Test
    void sixthRequestWhileFiveRun_is429TooManyInFlight_withoutRetryAfter() throws Exception {
        arrived = new CountDownLatch(5);
        List<CompletableFuture<HttpResponse<String>>> running = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            running.add(CLIENT.sendAsync(fixture.server.request("/api/v1/reports/held")
                    .header("X-API-Key", TestConfig.ACME_KEY).GET().build(), HttpResponse.BodyHandlers.ofString()));
        }
        assertThat(arrived.await(30, TimeUnit.SECONDS)).as("five requests running").isTrue();

        HttpResponse<String> sixth = get("/api/v1/reports/quick");

        assertThat(sixth.statusCode()).isEqualTo(429);
        assertThat(sixth.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(sixth.headers().firstValue("Retry-After")).isEmpty();
        assertThat(sixth.headers().firstValue("Quota-In-Flight-Limit")).hasValue("5");
        assertThat(sixth.headers().map()).doesNotContainKeys("ratelimit", "ratelimit-policy");
        assertThat(sixth.body()).contains("\"type\":\"urn:quota:problem:too-many-in-flight\"")
                .contains("\"limit\":\"reports-in-flight\"").contains("\"inFlightLimit\":5")
                .doesNotContain("retryAfterSeconds");
        assertThat(get("/api/v1/accounts/42").statusCode()).as("other endpoints").isEqualTo(200);

        finishHeld();
        for (CompletableFuture<HttpResponse<String>> response : running) {
            assertThat(response.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        }
        for (int i = 0; i < 5; i++) {
            assertThat(get("/api/v1/reports/empty").statusCode()).as("the five leases are back").isEqualTo(204);
        }
    }

    @Test
    void leaseOfAWrittenResponse_isGivenBack_soRequestsOneAfterAnotherNeverRunOutOfLeases() {
        for (int i = 0; i < 12; i++) {
            assertThat(get("/api/v1/reports/quick").statusCode()).isEqualTo(200);
        }

        assertThat(endings).hasSize(12).allSatisfy(ending -> {
            assertThat(ending.status()).isEqualTo(200);
            assertThat(ending.written()).isTrue();
            assertThat(ending.bytes()).isEqualTo("report".length());
        });
    }

    @Test
    void leasesOfResponsesWithoutEntity_areGivenBack() {
        for (int i = 0; i < 6; i++) {
            assertThat(get("/api/v1/reports/empty").statusCode()).isEqualTo(204);
            HttpResponse<String> head = fixture.server.send(fixture.server.request("/api/v1/reports/head")
                    .header("X-API-Key", TestConfig.ACME_KEY).method("HEAD", HttpRequest.BodyPublishers.noBody()));
            assertThat(head.statusCode()).isEqualTo(200);
        }
    }

    @Test
    void leaseOfAResponseThatFailedToBeWritten_isGivenBack_andTheEndSaysSo() throws Exception {
        for (int i = 0; i < 6; i++) {
            try {
                CLIENT.send(fixture.server.request("/api/v1/reports/broken").header("X-API-Key", TestConfig.ACME_KEY)
                        .GET().build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            } catch (IOException expected) {
                // the response was cut off: what the client sees of a server that failed mid-write
            }
        }

        assertThat(get("/api/v1/reports/empty").statusCode()).as("six broken responses gave back six leases")
                .isEqualTo(204);
        assertThat(endings).hasSize(6).allSatisfy(ending -> {
            assertThat(ending.written()).isFalse();
            assertThat(ending.failure()).hasMessage("the client went away");
        });
    }

    @Test
    void requestsOfAnotherCustomer_haveTheirOwnLeases() throws Exception {
        arrived = new CountDownLatch(5);
        List<CompletableFuture<HttpResponse<String>>> running = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            running.add(CLIENT.sendAsync(fixture.server.request("/api/v1/reports/held")
                    .header("X-API-Key", TestConfig.ACME_KEY).GET().build(), HttpResponse.BodyHandlers.ofString()));
        }
        assertThat(arrived.await(30, TimeUnit.SECONDS)).isTrue();

        // anonymous callers are counted per address, on their own leases
        assertThat(fixture.server.get("/api/v1/reports/empty").statusCode()).isEqualTo(204);
        finishHeld();
        for (CompletableFuture<HttpResponse<String>> response : running) {
            assertThat(response.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        }
    }
}
