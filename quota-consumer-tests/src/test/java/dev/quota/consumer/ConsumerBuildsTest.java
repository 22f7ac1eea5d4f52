package dev.quota.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.testkit.RawHttp;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A user's service on each runtime the README names, built from the README's snippets against the
 * artifacts this build installed, run as its own process against a real Redis, and asked over
 * real HTTP what the README promises: 200 with RateLimit headers, 429 problems with
 * {@code Retry-After}, 401 for an unknown key, anonymous callers limited per client address,
 * transfers decided with their amount (429, 422, 400; never a 500), and the admin API: 200 with
 * the token, 401 without, 429 after too many wrong tokens from one address, and the top customers
 * of the process; an import charged exactly its rows, and at most two of a customer's imports
 * running at once (429 too-many-in-flight for the third); a statement streamed while it is charged,
 * ending after exactly the rows its caller's plan had left, then 429; a client that resets in the
 * middle of a large download, one sampled log line and no stack trace; on every runtime.
 *
 * <p>On a container that does not tell the client's address, the service must refuse to start.
 *
 * <p>The builds run as {@link ConsumerBuilds} says; a project is run as soon as its build is done,
 * one at a time on a flushed Redis.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsumerBuildsTest {

    private static final String ACME_KEY = ReadmeChecks.ACME_KEY;
    private static final String EXPORT = ReadmeChecks.EXPORT;
    private static final String ADMIN_ACME = "/admin/customers/acme";

    private static ConsumerBuilds builds;

    static List<String> projects() {
        return ConsumerProject.supported();
    }

    @BeforeAll
    static void buildEveryProject() {
        builds = ConsumerBuilds.get();
    }

    private static ConsumerProject built(String name) throws InterruptedException {
        return builds.built(name);
    }

    private static ConsumerProject.Running start(ConsumerProject project) {
        return builds.start(project);
    }

    @Order(1)
    @ParameterizedTest(name = "{0}")
    @MethodSource("projects")
    void consumerProject_answersAsTheReadmeSays(String name) throws InterruptedException {
        try (ConsumerProject.Running service = start(built(name))) {
            answersAsTheReadmeSays(service);
        }
    }

    /**
     * 200 with RateLimit headers for a known key, 401 for an unknown one, the anonymous plan per
     * client address: 200, then 429 from 127.0.0.1 while 127.0.0.2 still gets its 200.
     */
    static void answersAsTheReadmeSays(ConsumerProject.Running service) {
        ReadmeChecks.exportsAndAnonymousCallers(service.port(), "", service::output);
    }

    @Order(2)
    @ParameterizedTest(name = "{0}")
    @MethodSource("projects")
    void adminApi_answersTheRightTokenOnly_andThrottlesWrongTokensPerClientAddress(String name)
            throws InterruptedException {
        try (ConsumerProject.Running service = start(built(name))) {
            int port = service.port();
            String bearer = "Bearer " + ConsumerProject.ADMIN_TOKEN;
            assertThat(RawHttp.get("127.0.0.1", port, EXPORT, "X-API-Key", ACME_KEY).status()).isEqualTo(200);

            RawHttp.Answer standing = RawHttp.get("127.0.0.1", port, ADMIN_ACME, "Authorization", bearer);
            assertThat(standing.status()).as("the right token; %s", service.output()).isEqualTo(200);
            assertThat(standing.header("Content-Type")).startsWith("application/json");
            assertThat(standing.header("RateLimit")).as("admin calls are not counted against a quota").isNull();
            assertThat(standing.body()).startsWith("{\"customer\":\"acme\",\"plan\":\"free\",\"multiplier\":1.0,")
                    .contains("{\"policy\":\"free-burst\",\"capacity\":20,")
                    // the export took 10 of today's 2000, in Redis
                    .containsPattern("\\{\"policy\":\"free-daily\",\"capacity\":2000,\"refill\":\\{[^}]*},"
                            + "\"remaining\":1990,");

            // one attempt comes back every 10 s: the six wrong tokens are sent back to back
            for (int i = 1; i <= 5; i++) {
                RawHttp.Answer wrong = RawHttp.get("127.0.0.3", port, ADMIN_ACME, "Authorization", "Bearer wrong-" + i);
                assertThat(wrong.status()).as("wrong token %d from 127.0.0.3; %s", i, service.output()).isEqualTo(401);
                assertThat(wrong.header("Content-Type")).startsWith("application/problem+json");
                assertThat(wrong.header("WWW-Authenticate")).isEqualTo("Bearer realm=\"quota-admin\"");
                assertThat(wrong.body()).contains("\"type\":\"urn:quota:problem:admin-token-required\"");
            }
            RawHttp.Answer throttled = RawHttp.get("127.0.0.3", port, ADMIN_ACME, "Authorization", "Bearer wrong-6");
            assertThat(throttled.status()).as("the sixth wrong token from 127.0.0.3").isEqualTo(429);
            assertThat(throttled.header("Content-Type")).startsWith("application/problem+json");
            assertThat(Long.parseLong(throttled.header("Retry-After"))).isBetween(1L, 10L);
            assertThat(throttled.body()).contains("\"type\":\"urn:quota:problem:too-many-failed-admin-tokens\"");

            // the config summary needs no store call: this checks the throttle, not Redis under load
            RawHttp.Answer otherAddress = RawHttp.get("127.0.0.1", port, "/admin/config", "Authorization", bearer);
            assertThat(otherAddress.status()).as("another address, with the right token").isEqualTo(200);
            assertThat(otherAddress.body()).startsWith("{\"version\":");

            // who is being limited, from this process's own decisions: the one export, cost 10
            RawHttp.Answer top = RawHttp.get("127.0.0.1", port, "/admin/top-customers", "Authorization", bearer);
            assertThat(top.status()).as("top customers; %s", service.output()).isEqualTo(200);
            assertThat(top.body()).startsWith("{\"scope\":\"instance\",")
                    .endsWith("\"byRefusals\":[],\"bySpending\":[{\"rank\":1,\"customer\":\"acme\","
                            + "\"kind\":\"account\",\"count\":10,\"atLeast\":10}]}");
        }
    }

    @Order(3)
    @Test
    void containerWithoutAPeerAddress_refusesToStart_sayingHowToSupplyOne() throws InterruptedException {
        try (ConsumerProject.Running service = built(ConsumerProject.UNSUPPORTED).launch(builds.redisUri())) {
            String output = service.awaitOutput("QuotaFeature.builder(service).clientAddress(request -> ...)",
                    ConsumerProject.START_TIMEOUT);

            assertThat(output).contains("java.lang.IllegalStateException: quota: cannot find the client's address on"
                    + " this runtime: Jersey, but none of its Grizzly, Jetty or servlet containers is on the class path");
            assertThat(output).doesNotContain("listening on");
        }
    }

    @Order(4)
    @ParameterizedTest(name = "{0}")
    @MethodSource("projects")
    void transfers_areDecidedWithTheirAmount_429_422_400_neverA500(String name) throws InterruptedException {
        try (ConsumerProject.Running service = start(built(name))) {
            List<String> statusLines = decidesTransfersWithTheirAmount(service);

            if (STATUS_LINES.containsKey(name)) {
                assertThat(statusLines).as("429 and 422 status lines").isEqualTo(STATUS_LINES.get(name));
            }
        }
    }

    /**
     * Transfers of customer acme in EUR and USD against the README's 10,000.00 a day: 201, 429, 422,
     * 400; the status lines of the 429 and the 422, as the runtime wrote them.
     */
    static List<String> decidesTransfersWithTheirAmount(ConsumerProject.Running service) {
        return ReadmeChecks.transfers(service.port(), "", service::output);
    }

    /**
     * The 429 and 422 status lines each runtime writes, as the README's runtime table says: the
     * library's reason phrases, the runtime's own phrase for 422, or none at all (Tomcat).
     */
    private static final Map<String, List<String>> STATUS_LINES = Map.of(
            "jersey-3.1", List.of("HTTP/1.1 429 Too Many Requests", "HTTP/1.1 422 Unprocessable Content"),
            "jersey-4.0", List.of("HTTP/1.1 429 Too Many Requests", "HTTP/1.1 422 Unprocessable Entity"),
            "resteasy-6.2", List.of("HTTP/1.1 429 Too Many Requests", "HTTP/1.1 422 Unprocessable Entity"),
            "resteasy-7.0", List.of("HTTP/1.1 429 Too Many Requests", "HTTP/1.1 422 Unprocessable Entity"),
            "tomcat-10.1", List.of("HTTP/1.1 429 ", "HTTP/1.1 422 "));

    @Order(5)
    @ParameterizedTest(name = "{0}")
    @MethodSource("projects")
    void requestsTheRuntimeRefuses_405And415_costAToken_andAreLimited(String name) throws InterruptedException {
        try (ConsumerProject.Running service = start(built(name))) {
            ReadmeChecks.runtimeRefusals(service.port(), "", service::output);
        }
    }

    @Order(6)
    @ParameterizedTest(name = "{0}")
    @MethodSource("projects")
    void imports_areChargedTheirRows_andAtMostTwoRunAtOnce(String name) throws InterruptedException {
        try (ConsumerProject.Running service = start(built(name))) {
            ReadmeChecks.importsSettledAndInFlight(service.port(), "", 2000, service::output);
        }
    }

    /** Last: the statement spends its caller's plan to the end. */
    @Order(7)
    @ParameterizedTest(name = "{0}")
    @MethodSource("projects")
    void statement_streamsExactlyTheRowsThePlanHasLeft_endsCleanly_andTheNextIs429(String name)
            throws InterruptedException {
        try (ConsumerProject.Running service = start(built(name))) {
            ReadmeChecks.statementEndsWhenThePlanDoes(service.port(), "", service::output);
            ReadmeChecks.clientGoneMidDownload(service.port(), "", service::output, true);
            ReadmeChecks.clientGoneMidUpload(service.port(), "", service::output, true);
        }
    }
}
