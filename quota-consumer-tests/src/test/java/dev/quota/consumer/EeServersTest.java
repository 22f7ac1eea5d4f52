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
 * with their amount (429, 422, 400; never a 500).
 *
 * <p>The builds run one after the other in a lane of their own, so the next server's build and
 * unpacking overlap the previous server's run.
 */
class EeServersTest {

    /** The key the README's plans.yaml gives customer acme on plan free. */
    private static final String ACME_KEY = "acme-demo-key-0001";
    private static final String EXPORT = EeServer.API + "/api/v1/accounts/7/export";
    private static final String TRANSFERS = EeServer.API + "/api/v1/transfers";
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

            RawHttp.Answer admitted = RawHttp.get("127.0.0.1", port, EXPORT, "X-API-Key", ACME_KEY);
            assertThat(admitted.status()).as("a known key; %s", service.output()).isEqualTo(200);
            assertThat(admitted.body()).isEqualTo("export of account 7");
            assertThat(admitted.header("RateLimit-Policy")).isEqualTo("\"free-burst\";q=20;w=2, \"free-daily\";q=2000;w=86400");
            // the export cost 10 of the burst of 20, which refills at 10 per second
            assertThat(admitted.header("RateLimit")).startsWith("\"free-burst\";r=10;t=1, \"free-daily\";r=1990;t=");

            RawHttp.Answer unknownKey = RawHttp.get("127.0.0.1", port, EXPORT, "X-API-Key", "not-a-key");
            assertThat(unknownKey.status()).as("an unknown key").isEqualTo(401);
            assertThat(unknownKey.header("Content-Type")).startsWith("application/problem+json");
            assertThat(unknownKey.header("WWW-Authenticate")).isEqualTo("ApiKey header=\"X-API-Key\"");
            assertThat(unknownKey.body()).contains("\"type\":\"urn:quota:problem:unknown-api-key\"");

            RawHttp.Answer anonymous = RawHttp.get("127.0.0.1", port, EXPORT);
            assertThat(anonymous.status()).as("the first anonymous export from 127.0.0.1").isEqualTo(200);
            assertThat(anonymous.header("RateLimit")).isEqualTo("\"anonymous-burst\";r=0;t=120");

            RawHttp.Answer rejected = RawHttp.get("127.0.0.1", port, EXPORT);
            assertThat(rejected.status()).as("the second anonymous export from 127.0.0.1").isEqualTo(429);
            assertThat(rejected.header("Content-Type")).startsWith("application/problem+json");
            assertThat(Long.parseLong(rejected.header("Retry-After"))).isPositive();
            assertThat(rejected.body()).contains("\"type\":\"urn:quota:problem:quota-exceeded\"")
                    .contains("\"limit\":\"anonymous-burst\"");

            RawHttp.Answer otherClient = RawHttp.get("127.0.0.2", port, EXPORT);
            assertThat(otherClient.status()).as("an anonymous export from 127.0.0.2, after 127.0.0.1 ran out; %s",
                    service.output()).isEqualTo(200);
            assertThat(otherClient.header("RateLimit")).isEqualTo("\"anonymous-burst\";r=0;t=120");

            RawHttp.Answer within = transfer(port, "EUR", 600_000);
            assertThat(within.status()).as("6,000.00 of the day's 10,000.00; %s", service.output()).isIn(200, 201);

            RawHttp.Answer overRemaining = transfer(port, "EUR", 600_000);
            assertThat(overRemaining.status()).as("6,000.00 more, with 4,000.00 left; %s", service.output())
                    .isEqualTo(429);
            assertThat(overRemaining.header("Content-Type")).startsWith("application/problem+json");
            assertThat(Long.parseLong(overRemaining.header("Retry-After"))).isPositive();
            assertThat(overRemaining.body()).contains("\"type\":\"urn:quota:problem:quota-exceeded\"")
                    .contains("\"limit\":\"transfer-amount-daily\"").contains("\"remaining\":400000");

            RawHttp.Answer overWhole = transfer(port, "EUR", 2_000_000);
            assertThat(overWhole.status()).as("20,000.00, more than a day ever holds; %s", service.output())
                    .isEqualTo(422);
            assertThat(overWhole.header("Content-Type")).startsWith("application/problem+json");
            assertThat(overWhole.header("Retry-After")).as("retrying cannot help").isNull();
            assertThat(overWhole.body()).contains("\"type\":\"urn:quota:problem:exceeds-limit\"")
                    .contains("\"limit\":\"transfer-amount-daily\"");

            RawHttp.Answer negative = transfer(port, "EUR", -500);
            assertThat(negative.status()).as("a negative amount; %s", service.output()).isEqualTo(400);
            assertThat(negative.header("Content-Type")).startsWith("application/problem+json");
            assertThat(negative.body()).contains("\"type\":\"urn:quota:problem:invalid-amount\"");

            RawHttp.Answer huge = transfer(port, "EUR", Long.MAX_VALUE);
            assertThat(huge.status()).as("an amount of Long.MAX_VALUE; %s", service.output()).isEqualTo(422);

            RawHttp.Answer badCurrency = transfer(port, "EUR;DROP", 100);
            assertThat(badCurrency.status()).as("a currency that is no currency code; %s", service.output())
                    .isEqualTo(400);
            assertThat(badCurrency.body()).contains("\"type\":\"urn:quota:problem:invalid-amount\"")
                    .doesNotContain("DROP");

            RawHttp.Answer otherCurrency = transfer(port, "USD", 600_000);
            assertThat(otherCurrency.status()).as("USD has a limit of its own; %s", service.output()).isIn(200, 201);

            if (server == EeServer.WILDFLY) {
                // Undertow writes its own table's phrases; Payara and Open Liberty write theirs, and
                // have none for 422 and 429 (see the README's runtime table)
                assertThat(rejected.statusLine()).isEqualTo("HTTP/1.1 429 Too Many Requests");
                assertThat(overWhole.statusLine()).isEqualTo("HTTP/1.1 422 Unprocessable Entity");
            }
        } finally {
            runs.put(server, Duration.ofNanos(System.nanoTime() - start));
        }
    }

    /** The README's transfer, {@code {"currency":"EUR","amountMinor":600000}}, by customer acme. */
    private static RawHttp.Answer transfer(int port, String currency, long amountMinor) {
        return RawHttp.postJson("127.0.0.1", port, TRANSFERS,
                "{\"currency\":\"" + currency + "\",\"amountMinor\":" + amountMinor + "}", "X-API-Key", ACME_KEY);
    }
}
