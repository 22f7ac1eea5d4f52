package dev.quota.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.testkit.RawHttp;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The Jakarta EE server WAR of docs/runtimes.md ({@code quota-cdi} and the store in {@code WEB-INF/lib}, a
 * {@code beans.xml}, an {@code Application} that lists no classes, the plans in
 * {@code src/main/resources/plans.yaml}, {@code quota.store} and {@code quota.redis.uri} as
 * environment variables, no quota code) on each server it names, built from the artifacts
 * this build installed and run as the server's own process against a real Redis. Each server is
 * started once and asked everything the plain runtimes' projects are asked: 200 with RateLimit
 * headers, 401 for an unknown key, anonymous callers limited per client address, transfers decided
 * with their amount (429, 422, 400; never a 500), an import settled to its rows with
 * {@code QuotaRequest.settle} and at most two of them running at once, a statement metered with
 * {@code QuotaRequest.meter()} that ends after exactly the rows its caller's plan had left. Each WAR also holds a
 * second application that lists its classes and forgets quota's provider: its requests are
 * refused 503, and the reason
 * logged, never served unlimited.
 *
 * <p>The builds run in a lane of their own ({@link ConsumerBuilds}), so the next server's build and
 * unpacking overlap the previous server's run.
 */
class EeServersTest {

    /** Where each WAR's {@code ListedApi} is: an application wired wrongly on purpose. */
    private static final String LISTED = "/bank/listed";
    /** Payara Micro takes 20 s to start on an idle 2-core machine; a busy one takes longer. */
    private static final Duration START_TIMEOUT = Duration.ofMinutes(4);

    private static final Map<EeServer, Duration> runs = new EnumMap<>(EeServer.class);
    private static ConsumerBuilds builds;

    @BeforeAll
    static void buildEveryProject() {
        builds = ConsumerBuilds.get();
    }

    @AfterAll
    static void printTimes() {
        System.out.println("Jakarta EE servers: " + runs.entrySet().stream()
                .map(e -> e.getKey() + " started and checked in " + e.getValue().toMillis() / 1000.0 + " s")
                .collect(Collectors.joining("; ")));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(EeServer.class)
    void readmeWar_isEnforcedAsTheReadmeSays(EeServer server) throws InterruptedException {
        ConsumerProject project = builds.built(server.project());
        builds.flushRedis();
        long start = System.nanoTime();
        try (ConsumerProject.Running service = server.launch(project,
                Map.of("QUOTA_STORE", "redis", "QUOTA_REDIS_URI", builds.redisUri()))) {
            service.awaitOutput(server.readyLine(), START_TIMEOUT);
            service.awaitOutput(server.listeningLine(), START_TIMEOUT);
            int port = service.port();

            ReadmeChecks.exportsAndAnonymousCallers(port, EeServer.API, service::output);
            List<String> statusLines = ReadmeChecks.transfers(port, EeServer.API, service::output);
            ReadmeChecks.runtimeRefusals(port, EeServer.API, service::output);
            // acme's burst is nearly spent by now: its imports start again from a full day and burst
            builds.flushRedis();
            ReadmeChecks.importsSettledAndInFlight(port, EeServer.API, 2000, service::output);
            // a caller of its own, from a full anonymous burst
            ReadmeChecks.statementEndsWhenThePlanDoes(port, EeServer.API, service::output);
            ReadmeChecks.clientGoneMidDownload(port, EeServer.API, server.log(project, service), true);
            ReadmeChecks.clientGoneMidUpload(port, EeServer.API, server.log(project, service), true);

            // the servers' own reason phrases: Servlet 6 cannot hand them the library's (docs/runtimes.md's table)
            assertThat(statusLines).as("429 and 422 status lines").isEqualTo(server.statusLines());

            RawHttp.Answer admin = RawHttp.get("127.0.0.1", port, EeServer.API + "/admin/config",
                    "Authorization", "Bearer not-the-token-0123456789-abcdefghijkl");
            assertThat(admin.status()).as("the admin API, off without a token; %s", service.output()).isEqualTo(401);
            assertThat(admin.body()).contains("\"type\":\"urn:quota:problem:admin-token-required\"");

            // the WAR's second application lists its classes and forgets quota's provider: refused, never unlimited
            RawHttp.Answer unwired = RawHttp.get("127.0.0.1", port, LISTED + ReadmeChecks.EXPORT,
                    "X-API-Key", ReadmeChecks.ACME_KEY);
            assertThat(unwired.status()).as("an application without QuotaProviders; %s", service.output())
                    .isEqualTo(503);
            assertThat(unwired.header("Content-Type")).startsWith("application/problem+json");
            assertThat(unwired.header("RateLimit")).isNull();
            assertThat(unwired.body()).contains("\"type\":\"urn:quota:problem:quota-not-enforced\"");
            // said at start-up, by the servlet-side check, whatever the CDI discovery mode
            service.awaitOutput("quota: the Jakarta REST application example.ListedApi lists its classes but not"
                    + " dev.quota.cdi.QuotaProviders, so its requests would be served without their quota; every"
                    + " request to /listed/* is refused 503", Duration.ofSeconds(30));
        } finally {
            runs.put(server, Duration.ofNanos(System.nanoTime() - start));
        }
    }
}
