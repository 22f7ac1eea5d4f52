package dev.quota.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.AllowList;
import dev.quota.core.Concurrency;
import dev.quota.core.Customer;
import dev.quota.core.FailurePolicy;
import dev.quota.core.Limit;
import dev.quota.core.Mode;
import dev.quota.core.Plan;
import dev.quota.core.QuotaConfig;
import dev.quota.core.QuotaDecision;
import dev.quota.core.QuotaService;
import dev.quota.core.QuotaStoreException;
import dev.quota.core.Refill;
import dev.quota.core.Rule;
import dev.quota.core.resilience.CircuitBreakerStore;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.QuotaStore;
import dev.quota.core.spi.Take;
import dev.quota.core.store.InMemoryStore;
import dev.quota.testkit.MutableClock;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.HistogramPointData;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The metrics, read from the SDK's in-memory reader with the figures the decisions make. */
class OpenTelemetryQuotaListenerTest {

    private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
    private final Customer alice = Customer.of("alice", "free");
    private final InMemoryMetricReader reader = InMemoryMetricReader.create();
    private final OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
            .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(reader).build()).build();
    private final OpenTelemetryQuotaListener listener = OpenTelemetryQuotaListener.create(sdk);

    @AfterEach
    void close() {
        listener.close();
        sdk.close();
    }

    /** free: 2 requests an hour; transfers: 1 a minute, 2 running at once. */
    static QuotaConfig config(Mode mode, AllowList allow) {
        Plan free = Plan.of("free", List.of(new Limit("burst", 2, Refill.greedy(1, Duration.ofHours(1)))),
                FailurePolicy.LOCAL);
        Rule transfers = Rule.builder("transfers")
                .perCustomer(List.of(new Limit("per-minute", 1, Refill.greedy(1, Duration.ofMinutes(1))))).build();
        return QuotaConfig.builder().plan(free).rule(transfers).mode(mode).allow(allow).build();
    }

    private QuotaService service(QuotaStore store, QuotaConfig config) {
        return QuotaService.builder().store(store).config(config).clock(clock).listener(listener).build();
    }

    private QuotaService service(QuotaConfig config) {
        return service(InMemoryStore.builder().clock(clock).build(), config);
    }

    @Test
    void decisions_areCountedByResultPlanRuleAndTheLimitThatRefused_neverByCustomer() {
        QuotaService service = service(config(Mode.ENFORCE, new AllowList(Set.of("batch"), Set.of(), List.of())));
        Customer bob = Customer.of("bob", "free");

        service.decide(bob, "transfers");
        service.decide(bob, "transfers");
        service.decide(alice, null);
        service.decide(alice, null);
        service.decide(alice, null);
        service.decide(Customer.of("batch", "free"), null);

        assertThat(longSums("quota.decisions")).isEqualTo(Map.of(
                attributes("admitted", "free", "transfers", null, null), 1L,
                attributes("refused", "free", "transfers", "transfers-per-minute", "rule"), 1L,
                attributes("admitted", "free", null, null, null), 2L,
                attributes("refused", "free", null, "free-burst", "plan"), 1L,
                attributes("bypassed", "free", null, null, null), 1L));
    }

    @Test
    void shadowRejections_haveTheirOwnResult() {
        QuotaService service = service(config(Mode.SHADOW, AllowList.NONE));

        for (int i = 0; i < 3; i++) {
            service.decide(alice, null);
        }

        assertThat(longSums("quota.decisions")).isEqualTo(Map.of(
                attributes("admitted", "free", null, null, null), 2L,
                attributes("shadow_refused", "free", null, "free-burst", "plan"), 1L));
    }

    @Test
    void decisionDuration_isAHistogramInSeconds_byResult_withTheAdvisedBoundaries() {
        QuotaService service = service(config(Mode.ENFORCE, AllowList.NONE));
        for (int i = 0; i < 3; i++) {
            service.decide(alice, null);
        }
        listener.onDecision(alice, null, QuotaDecision.bypassed(), Duration.ofMillis(3));

        MetricData duration = metric("quota.decision.duration");
        assertThat(duration.getUnit()).isEqualTo("s");
        Map<Attributes, HistogramPointData> points = duration.getHistogramData().getPoints().stream()
                .collect(Collectors.toMap(HistogramPointData::getAttributes, p -> p));
        assertThat(points.keySet()).containsExactlyInAnyOrder(result("admitted"), result("refused"), result("bypassed"));
        assertThat(points.get(result("admitted")).getCount()).isEqualTo(2);
        assertThat(points.get(result("refused")).getCount()).isEqualTo(1);
        HistogramPointData bypassed = points.get(result("bypassed"));
        assertThat(bypassed.getBoundaries()).isEqualTo(Names.DURATION_BOUNDARIES);
        assertThat(bypassed.getSum()).isEqualTo(0.003);
        // 0.003 s falls in (0.0025, 0.005]
        assertThat(bypassed.getCounts().get(Names.DURATION_BOUNDARIES.indexOf(0.005))).isEqualTo(1);
    }

    @Test
    void leasesHeld_riseWithEachAdmittedRequestHoldingOne_andFallOncePerRelease() {
        Rule transfers = Rule.builder("transfers").concurrency(Concurrency.of(2)).build();
        Plan free = Plan.of("free", List.of(new Limit("burst", 100, Refill.greedy(100, Duration.ofHours(1)))),
                FailurePolicy.LOCAL);
        QuotaService service = service(QuotaConfig.builder().plan(free).rule(transfers).build());

        QuotaDecision first = service.decide(alice, "transfers");
        QuotaDecision second = service.decide(alice, "transfers");
        QuotaDecision third = service.decide(alice, "transfers");
        service.decide(alice, null);
        assertThat(third.allowed()).isFalse();
        assertThat(longSums("quota.leases.held")).isEqualTo(Map.of(Attributes.empty(), 2L));

        service.release(first);
        service.release(first);
        service.release(third);
        assertThat(longSums("quota.leases.held")).isEqualTo(Map.of(Attributes.empty(), 1L));

        service.release(second);
        assertThat(longSums("quota.leases.held")).isEqualTo(Map.of(Attributes.empty(), 0L));
        assertThat(longSums("quota.decisions")).containsEntry(
                attributes("refused", "free", "transfers", "transfers-in-flight", "in_flight"), 1L);
    }

    @Test
    void fallbackDecisions_areCountedByWhoAnsweredAndWhy_everySeriesFromZero() {
        QuotaConfig config = config(Mode.ENFORCE, AllowList.NONE);
        assertThat(longSums("quota.fallback.decisions")).isEqualTo(Map.of(
                fallback("local", "outage"), 0L, fallback("open", "outage"), 0L,
                fallback("closed", "outage"), 0L, fallback("shed", "call_failed"), 0L));

        try (QuotaService slow = service(failing(false), config); QuotaService down = service(failing(true), config)) {
            slow.decide(alice, null);
            slow.decide(alice, null);
            down.decide(alice, null);
        }

        assertThat(longSums("quota.fallback.decisions")).isEqualTo(Map.of(
                fallback("local", "outage"), 1L, fallback("open", "outage"), 0L,
                fallback("closed", "outage"), 0L, fallback("shed", "call_failed"), 2L));
        assertThat(longSums("quota.decisions")).isEqualTo(Map.of(
                attributes("unavailable", "free", null, null, null).toBuilder().put(Names.FALLBACK, "shed").build(), 2L,
                attributes("admitted", "free", null, null, null).toBuilder().put(Names.FALLBACK, "local").build(), 1L));
        assertThat(longSums("quota.store.errors")).isEqualTo(Map.of(Attributes.of(Names.IN_DOUBT, false), 3L));
        assertThat(longSums("quota.fallback.active")).isEqualTo(Map.of(Attributes.empty(), 1L));
    }

    @Test
    void settles_areCountedByOutcome_everySeriesFromZero() {
        Plan metered = Plan.of("metered", List.of(new Limit("burst", 100, Refill.greedy(100, Duration.ofHours(1)))),
                FailurePolicy.LOCAL);
        Rule export = Rule.builder("export").cost(10).build();
        QuotaService service = service(QuotaConfig.builder().plan(metered).rule(export).build());
        Customer carol = Customer.of("carol", "metered");
        QuotaDecision rows37 = service.decide(carol, "export");
        QuotaDecision rows4 = service.decide(carol, "export");

        service.settle(rows37, 37);
        service.settle(rows4, 4);
        service.settle(rows37, 40);

        Map<Attributes, Long> settles = longSums("quota.settles");
        assertThat(settles).hasSize(7);
        assertThat(settles).containsEntry(Attributes.of(Names.SETTLE_OUTCOME, "charged"), 1L)
                .containsEntry(Attributes.of(Names.SETTLE_OUTCOME, "given_back"), 1L)
                .containsEntry(Attributes.of(Names.SETTLE_OUTCOME, "already_settled"), 1L)
                .containsEntry(Attributes.of(Names.SETTLE_OUTCOME, "refunded"), 0L)
                .containsEntry(Attributes.of(Names.SETTLE_OUTCOME, "failed"), 0L);
    }

    @Test
    void breakerState_isOneForItsStateAndZeroForTheOthers_onceTheServiceIsObserved() {
        CircuitBreakerStore breaker = CircuitBreakerStore.builder(InMemoryStore.builder().clock(clock).build()).build();
        QuotaService service = service(breaker, config(Mode.ENFORCE, AllowList.NONE));
        assertThat(metricOrNull("quota.store.breaker.state")).isNull();

        listener.observe(service);

        assertThat(longSums("quota.store.breaker.state")).isEqualTo(Map.of(
                Attributes.of(Names.BREAKER, "closed"), 1L, Attributes.of(Names.BREAKER, "open"), 0L,
                Attributes.of(Names.BREAKER, "half_open"), 0L));
    }

    @Test
    void observedService_publishesItsConfigVersion_andTheCountsOfItsTopCustomersByRank_neverWhoTheyAre() {
        QuotaService service = service(config(Mode.ENFORCE, AllowList.NONE));
        listener.observe(service);
        for (int i = 0; i < 5; i++) {
            service.decide(alice, null);
        }
        service.decide(Customer.of("bob", "free"), null);
        service.reload(config(Mode.ENFORCE, AllowList.NONE));

        assertThat(longGauges("quota.config.version")).isEqualTo(Map.of(Attributes.empty(), service.config().version()));
        Map<Attributes, Long> refusals = longGauges("quota.top.refusals");
        assertThat(refusals).hasSize(10).containsEntry(rank(1), 3L).containsEntry(rank(2), 0L);
        Map<Attributes, Long> spending = longGauges("quota.top.spending");
        assertThat(spending).hasSize(10).containsEntry(rank(1), 2L).containsEntry(rank(2), 1L)
                .containsEntry(rank(10), 0L);
    }

    @Test
    void closedListener_publishesNothingReadAtCollection() {
        listener.observe(service(config(Mode.ENFORCE, AllowList.NONE)));

        listener.close();

        assertThat(reader.collectAllMetrics()).extracting(MetricData::getName)
                .doesNotContain("quota.config.version", "quota.top.refusals", "quota.fallback.active");
    }

    @Test
    void breakerState_isNotPublished_forAStoreWithoutABreaker() {
        listener.observe(service(config(Mode.ENFORCE, AllowList.NONE)));

        assertThat(metricOrNull("quota.store.breaker.state")).isNull();
    }

    @Test
    void reloadsAndFailedKeys_areCountedByResult() {
        QuotaService service = service(config(Mode.ENFORCE, AllowList.NONE));
        service.reload(config(Mode.ENFORCE, AllowList.NONE));
        listener.onReload(false, 2);
        listener.onFailedKey(QuotaDecision.allowed(List.of()));

        assertThat(longSums("quota.config.reloads")).isEqualTo(Map.of(
                Attributes.of(Names.RELOAD_RESULT, "applied"), 1L, Attributes.of(Names.RELOAD_RESULT, "rejected"), 1L));
        assertThat(longSums("quota.failed_keys")).isEqualTo(Map.of(result("admitted"), 1L));
    }

    @Test
    void decisionSeries_areCappedSoUnknownPlansCannotExplodeCardinality() {
        for (int i = 0; i < OpenTelemetryQuotaListener.MAX_SERIES + 50; i++) {
            listener.onDecision(Customer.of("c" + i, "plan-" + i), null, QuotaDecision.bypassed(), Duration.ofMillis(1));
        }

        Map<Attributes, Long> decisions = longSums("quota.decisions");
        assertThat(decisions).hasSize(OpenTelemetryQuotaListener.MAX_SERIES + 1);
        assertThat(decisions).containsEntry(attributes("bypassed", "other", null, null, null), 50L);
    }

    @Test
    void instruments_haveTheDocumentedUnits() {
        QuotaService service = service(config(Mode.ENFORCE, AllowList.NONE));
        service.decide(alice, null);

        Map<String, String> units = reader.collectAllMetrics().stream()
                .collect(Collectors.toMap(MetricData::getName, MetricData::getUnit));

        assertThat(units).containsEntry("quota.decisions", "{decision}").containsEntry("quota.decision.duration", "s")
                .containsEntry("quota.fallback.decisions", "{decision}").containsEntry("quota.settles", "{settle}")
                .containsEntry("quota.fallback.active", "{fallback}");
        assertThat(reader.collectAllMetrics()).allSatisfy(m ->
                assertThat(m.getInstrumentationScopeInfo().getName()).isEqualTo("dev.quota"));
    }

    static Attributes attributes(String result, String plan, String rule, String limit, String kind) {
        AttributesBuilder builder = Attributes.builder().put(Names.RESULT, result).put(Names.PLAN, plan);
        if (rule != null) {
            builder.put(Names.RULE, rule);
        }
        if (limit != null) {
            builder.put(Names.LIMIT, limit);
        }
        if (kind != null) {
            builder.put(Names.LIMIT_KIND, kind);
        }
        return builder.build();
    }

    private static Attributes result(String result) {
        return Attributes.of(Names.RESULT, result);
    }

    private static Attributes fallback(String kind, String reason) {
        return Attributes.of(Names.FALLBACK, kind, Names.FALLBACK_REASON, reason);
    }

    private MetricData metric(String name) {
        MetricData metric = metricOrNull(name);
        assertThat(metric).as(name).isNotNull();
        return metric;
    }

    private MetricData metricOrNull(String name) {
        Collection<MetricData> all = reader.collectAllMetrics();
        return all.stream().filter(m -> m.getName().equals(name)).findFirst().orElse(null);
    }

    private static Attributes rank(int rank) {
        return Attributes.of(ServiceGauges.RANK, Integer.toString(rank));
    }

    /** Each point of a long gauge by its attributes. */
    private Map<Attributes, Long> longGauges(String name) {
        return metric(name).getLongGaugeData().getPoints().stream()
                .collect(Collectors.toMap(LongPointData::getAttributes, LongPointData::getValue));
    }

    /** Each point of a long sum by its attributes. */
    private Map<Attributes, Long> longSums(String name) {
        return metric(name).getLongSumData().getPoints().stream()
                .collect(Collectors.toMap(LongPointData::getAttributes, LongPointData::getValue));
    }

    /** A store whose every call fails: as one failed call, or as an established outage. */
    static QuotaStore failing(boolean outage) {
        return new QuotaStore() {
            private RuntimeException failure() {
                return outage ? QuotaStoreException.outage("down (test)") : new QuotaStoreException("slow (test)");
            }

            @Override
            public List<ConsumeResult> tryConsume(List<Take> takes) {
                throw failure();
            }

            @Override
            public void addTokens(BucketKey key, BucketSpec spec, long tokens) {
                throw failure();
            }

            @Override
            public void releaseLease(BucketKey key, BucketSpec spec, long lease) {
                throw failure();
            }

            @Override
            public ConsumeResult peek(BucketKey key, BucketSpec spec) {
                throw failure();
            }

            @Override
            public void reset(BucketKey key) {
                throw failure();
            }

            @Override
            public String describe() {
                return "failing (test)";
            }

            @Override
            public void close() {
            }
        };
    }
}
