package dev.quota.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.testkit.RawHttp;
import dev.quota.testkit.RedisServer;
import dev.quota.testkit.RespClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A user's Open Liberty WAR (with {@code mpTelemetry-2.0}) and Quarkus service (with
 * {@code quarkus-opentelemetry}), each wired with quota-opentelemetry only as docs/opentelemetry.md
 * says, exporting over OTLP (http/protobuf) to a receiver this test runs ({@link OtlpReceiver}).
 * After two exports of acme's and two of an anonymous caller's (the second refused by
 * {@code anonymous-burst}: 10 at once, 5 a minute), what arrived is exactly: {@code quota.decisions}
 * 2, 1 and 1 by result, plan, rule and limit; {@code quota.decision.duration} 3 admitted and 1
 * refused; every fallback series at 0; the breaker closed; and on the four request spans the
 * decision's attributes, with a {@code quota.refused} event on the refused one whose retry-after
 * rounds up to the 429's {@code Retry-After}.
 *
 * <p>Builds only its two projects (the base projects with the {@code mp-telemetry} and
 * {@code quarkus-opentelemetry} overlays), against its own Redis.
 */
class OpenTelemetryExportTest {

    private static final String LIBERTY = "open-liberty+mp-telemetry";
    private static final String QUARKUS = "quarkus-rest-cdi+quarkus-opentelemetry";
    private static final String ACME_KEY = "acme-demo-key-0001";
    private static final String EXPORT = ReadmeChecks.EXPORT;
    /** The exporters send every 500 ms; a service that just started needs a few rounds. */
    private static final Duration ARRIVAL = Duration.ofSeconds(60);
    private static final Duration START_TIMEOUT = Duration.ofMinutes(4);

    private static RedisServer redis;
    private static Map<String, CompletableFuture<ConsumerProject>> builds;
    private OtlpReceiver receiver;

    @BeforeAll
    static void buildBoth() {
        Path repository = LocalRepository.path();
        assertThat(LocalRepository.staleArtifacts(Checkout.root(), Checkout.version(), repository))
                .as("run mvn install first: the projects would build against other artifacts").isEmpty();
        builds = new HashMap<>();
        for (String name : List.of(QUARKUS, LIBERTY)) {
            builds.put(name, CompletableFuture.supplyAsync(() -> {
                ConsumerProject project = new ConsumerProject(name);
                project.build(repository);
                return project;
            }));
        }
        redis = RedisServer.start();
    }

    @AfterAll
    static void stopRedis() {
        if (redis != null) {
            redis.close();
        }
    }

    @BeforeEach
    void startReceiver() {
        receiver = OtlpReceiver.start();
    }

    @AfterEach
    void stopReceiver() {
        receiver.close();
    }

    private static ConsumerProject built(String name) {
        return builds.get(name).join();
    }

    @Test
    void quarkus_exportsTheDocumentedSeriesAndSpanAttributes_overOtlp() {
        Map<String, String> otel = Map.of(
                "QUARKUS_OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint(),
                "QUARKUS_OTEL_METRIC_EXPORT_INTERVAL", "500ms",
                "QUARKUS_OTEL_BSP_SCHEDULE_DELAY", "100ms");
        try (ConsumerProject.Running service = built(QUARKUS).start(redis.uri(), otel)) {
            exportsWhatTheDocsSay(service.port(), "", service::output);
        }
    }

    @Test
    void openLiberty_exportsTheDocumentedSeriesAndSpanAttributes_overOtlp() {
        Map<String, String> environment = new HashMap<>(Map.of(
                "QUOTA_STORE", "redis", "QUOTA_REDIS_URI", redis.uri(),
                "OTEL_SDK_DISABLED", "false",
                "OTEL_SERVICE_NAME", "bank",
                "OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint(),
                "OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf",
                "OTEL_LOGS_EXPORTER", "none",
                "OTEL_METRIC_EXPORT_INTERVAL", "500",
                "OTEL_BSP_SCHEDULE_DELAY", "100"));
        try (ConsumerProject.Running service = EeServer.OPEN_LIBERTY.launch(built(LIBERTY), environment)) {
            service.awaitOutput(EeServer.OPEN_LIBERTY.readyLine(), START_TIMEOUT);
            service.awaitOutput(EeServer.OPEN_LIBERTY.listeningLine(), START_TIMEOUT);
            exportsWhatTheDocsSay(service.port(), EeServer.API, service::output);
        }
    }

    private void exportsWhatTheDocsSay(int port, String api, Supplier<String> output) {
        flushRedis();
        assertThat(RawHttp.get("127.0.0.1", port, api + EXPORT, "X-API-Key", ACME_KEY).status())
                .as("%s", output.get()).isEqualTo(200);
        assertThat(RawHttp.get("127.0.0.1", port, api + EXPORT, "X-API-Key", ACME_KEY).status()).isEqualTo(200);
        assertThat(RawHttp.get("127.0.0.1", port, api + EXPORT).status()).isEqualTo(200);
        RawHttp.Answer refused = RawHttp.get("127.0.0.1", port, api + EXPORT);
        assertThat(refused.status()).isEqualTo(429);
        long retryAfter = Long.parseLong(refused.header("Retry-After"));

        Map<String, Object> freeAdmitted = Map.of("quota.result", "admitted", "quota.plan", "free",
                "quota.rule", "export");
        Map<String, Object> anonymousAdmitted = Map.of("quota.result", "admitted", "quota.plan", "anonymous",
                "quota.rule", "export");
        Map<String, Object> anonymousRefused = Map.of("quota.result", "refused", "quota.plan", "anonymous",
                "quota.rule", "export", "quota.limit", "anonymous-burst", "quota.limit.kind", "plan");
        receiver.awaitUntil("quota.decisions 2, 1 and 1, and four decided spans", ARRIVAL,
                () -> value("quota.decisions", anonymousRefused) == 1 && decidedSpans().size() == 4, output);

        assertThat(receiver.points("quota.decisions").stream()
                .collect(Collectors.toMap(OtlpReceiver.Point::attributes, OtlpReceiver.Point::value)))
                .isEqualTo(Map.of(freeAdmitted, 2.0, anonymousAdmitted, 1.0, anonymousRefused, 1.0));
        assertThat(receiver.point("quota.decision.duration", Map.of("quota.result", "admitted")).count())
                .isEqualTo(3);
        assertThat(receiver.point("quota.decision.duration", Map.of("quota.result", "refused")).count())
                .isEqualTo(1);
        assertThat(receiver.points("quota.fallback.decisions")).hasSize(4)
                .allSatisfy(p -> assertThat(p.value()).as("%s", p).isZero());
        assertThat(receiver.points("quota.store.breaker.state").stream()
                .collect(Collectors.toMap(p -> p.attributes().get("quota.breaker.state"), OtlpReceiver.Point::value)))
                .isEqualTo(Map.of("closed", 1.0, "open", 0.0, "half_open", 0.0));

        List<OtlpReceiver.ReceivedSpan> spans = decidedSpans();
        assertThat(spans.stream().map(s -> s.attributes().get("quota.plan") + " " + s.attributes().get("quota.result")))
                .containsExactlyInAnyOrder("free admitted", "free admitted", "anonymous admitted", "anonymous refused");
        assertThat(spans).filteredOn(s -> "free".equals(s.attributes().get("quota.plan")))
                .allSatisfy(s -> assertThat(s.attributes()).containsEntry("quota.limit", "free-burst")
                        .containsEntry("quota.limit.kind", "plan").containsEntry("quota.limit.capacity", 20L)
                        .doesNotContainKey("quota.retry_after"))
                .anySatisfy(s -> assertThat(s.attributes()).as("acme's first export").containsEntry(
                        "quota.limit.remaining", 10L))
                .allSatisfy(s -> assertThat(s.events()).isEmpty());
        OtlpReceiver.ReceivedSpan refusedSpan = spans.stream()
                .filter(s -> "refused".equals(s.attributes().get("quota.result"))).findFirst().orElseThrow();
        assertThat(refusedSpan.attributes()).containsEntry("quota.rule", "export")
                .containsEntry("quota.limit", "anonymous-burst").containsEntry("quota.limit.kind", "plan")
                .containsEntry("quota.limit.capacity", 10L).containsEntry("quota.limit.remaining", 0L);
        double spanRetryAfter = (Double) refusedSpan.attributes().get("quota.retry_after");
        assertThat((long) Math.ceil(spanRetryAfter)).as("the 429's Retry-After, in whole seconds")
                .isEqualTo(retryAfter);
        assertThat(refusedSpan.events()).singleElement().satisfies(event -> {
            assertThat(event.name()).isEqualTo("quota.refused");
            assertThat(event.attributes()).containsEntry("quota.result", "refused")
                    .containsEntry("quota.limit", "anonymous-burst").containsEntry("quota.limit.kind", "plan")
                    .containsEntry("quota.retry_after", spanRetryAfter);
        });
        assertThat(receiver.errors()).isEmpty();
    }

    private double value(String metric, Map<String, Object> attributes) {
        OtlpReceiver.Point point = receiver.point(metric, attributes);
        return point == null ? -1 : point.value();
    }

    private List<OtlpReceiver.ReceivedSpan> decidedSpans() {
        return receiver.spans().stream().filter(s -> s.attributes().containsKey("quota.result")).toList();
    }

    /** Empties Redis before a service's requests, so that each starts from full buckets. */
    private static void flushRedis() {
        try (RespClient client = RespClient.connect(redis.host(), redis.port())) {
            client.flushAll();
        }
    }
}
