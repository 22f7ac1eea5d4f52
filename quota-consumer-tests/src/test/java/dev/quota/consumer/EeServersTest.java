package dev.quota.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.testkit.RawHttp;
import dev.quota.testkit.RedisServer;
import dev.quota.testkit.RespClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The README's Jakarta EE server WAR ({@code quota-cdi} and the store in {@code WEB-INF/lib}, a
 * {@code beans.xml}, an {@code Application} that lists no classes, the plans in
 * {@code src/main/resources/plans.yaml}, {@code quota.store} and {@code quota.redis.uri} as
 * environment variables, no quota code) on each server the README names, built from the artifacts
 * this build installed and run as the server's own process against a real Redis. Each server is
 * started once and asked everything the plain runtimes' projects are asked: 200 with RateLimit
 * headers, 401 for an unknown key, anonymous callers limited per client address, transfers decided
 * with their amount (429, 422, 400; never a 500). Each WAR also holds a second application that
 * lists its classes and forgets quota's provider: its requests are refused 503, and the reason
 * logged, never served unlimited.
 *
 * <p>The builds run one after the other in a lane of their own, so the next server's build and
 * unpacking overlap the previous server's run.
 */
class EeServersTest {

    /** Where each WAR's {@code ListedApi} is: an application wired wrongly on purpose. */
    private static final String LISTED = "/bank/listed";
    /** Payara Micro takes 20 s to start on an idle 2-core machine; a busy one takes longer. */
    private static final Duration START_TIMEOUT = Duration.ofMinutes(4);

    private static final Map<EeServer, CompletableFuture<ConsumerProject>> builds = new EnumMap<>(EeServer.class);
    private static final Map<EeServer, Duration> runs = new EnumMap<>(EeServer.class);
    private static ExecutorService lane;
    private static RedisServer redis;
    private static long started;

    @BeforeAll
    static void buildEveryProject() {
        started = System.nanoTime();
        Path repository = LocalRepository.path();
        List<String> stale = LocalRepository.staleArtifacts(Checkout.root(), Checkout.version(), repository);
        assertThat(stale).as("the consumer projects would build against other artifacts than this build's; run mvn"
                + " install, which installs each module before this one runs").isEmpty();
        lane = Executors.newSingleThreadExecutor(r -> new Thread(r, "consumer-builds-ee"));
        for (EeServer server : EeServer.values()) {
            builds.put(server, CompletableFuture.supplyAsync(() -> {
                ConsumerProject project = new ConsumerProject(server.project());
                project.build(repository);
                return project;
            }, lane));
        }
        redis = RedisServer.start();
    }

    @AfterAll
    static void stopEverything() throws InterruptedException {
        if (lane != null) {
            lane.shutdownNow();
            lane.awaitTermination(30, TimeUnit.SECONDS);
        }
        if (redis != null) {
            redis.close();
        }
        String times = builds.entrySet().stream().filter(e -> e.getValue().isDone() && !e.getValue().isCompletedExceptionally())
                .map(e -> e.getKey() + " built in " + seconds(e.getValue().join().buildTime())
                        + (runs.containsKey(e.getKey()) ? ", started and checked in " + seconds(runs.get(e.getKey())) : ""))
                .collect(Collectors.joining("; "));
        System.out.println("Jakarta EE servers: " + times + "; all done in "
                + seconds(Duration.ofNanos(System.nanoTime() - started)));
    }

    private static String seconds(Duration duration) {
        return duration.toMillis() / 1000.0 + " s";
    }

    private static ConsumerProject built(EeServer server) throws InterruptedException {
        try {
            return builds.get(server).get(ConsumerProject.BUILD_TIMEOUT.toMinutes() * 3, TimeUnit.MINUTES);
        } catch (ExecutionException e) {
            throw new AssertionError("the build of " + server.project() + " failed: " + e.getCause().getMessage(),
                    e.getCause());
        } catch (TimeoutException e) {
            throw new AssertionError("the build of " + server.project() + " did not finish", e);
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(EeServer.class)
    void readmeWar_isEnforcedAsTheReadmeSays(EeServer server) throws InterruptedException {
        ConsumerProject project = built(server);
        try (RespClient client = RespClient.connect(redis.host(), redis.port())) {
            client.flushAll();
        }
        long start = System.nanoTime();
        try (ConsumerProject.Running service = server.launch(project,
                Map.of("QUOTA_STORE", "redis", "QUOTA_REDIS_URI", redis.uri()))) {
            service.awaitOutput(server.readyLine(), START_TIMEOUT);
            int port = service.port();

            ReadmeChecks.exportsAndAnonymousCallers(port, EeServer.API, service::output);
            List<String> statusLines = ReadmeChecks.transfers(port, EeServer.API, service::output);

            // the servers' own reason phrases: Servlet 6 cannot hand them the library's (the README's runtime table)
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
            service.awaitOutput("ExportResource.export was called without quota's filters having seen the request,"
                    + " so it is refused 503: the Jakarta REST application does not register"
                    + " dev.quota.cdi.QuotaProviders", Duration.ofSeconds(30));
        } finally {
            runs.put(server, Duration.ofNanos(System.nanoTime() - start));
        }
    }
}
