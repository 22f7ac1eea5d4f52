package dev.quota.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.AllowList;
import dev.quota.core.Credential;
import dev.quota.core.Customer;
import dev.quota.core.FailurePolicy;
import dev.quota.core.Limit;
import dev.quota.core.LimitStatus;
import dev.quota.core.Mode;
import dev.quota.core.Plan;
import dev.quota.core.QuotaConfig;
import dev.quota.core.QuotaDecision;
import dev.quota.core.QuotaService;
import dev.quota.core.QuotaStoreException;
import dev.quota.core.Refill;
import dev.quota.core.RequestFacts;
import dev.quota.core.Rule;
import dev.quota.core.net.ClientAddresses;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.QuotaStore;
import dev.quota.core.spi.Take;
import dev.quota.core.store.InMemoryStore;
import dev.quota.testkit.MutableClock;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class MicrometerQuotaListenerTest {

    private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
    private final Customer alice = Customer.of("alice", "free");

    private static QuotaConfig config(Mode mode, AllowList allow) {
        Plan free = Plan.of("free", List.of(new Limit("burst", 2, Refill.greedy(1, Duration.ofHours(1)))),
                FailurePolicy.LOCAL);
        Rule transfers = Rule.builder("transfers")
                .perCustomer(List.of(new Limit("per-minute", 1, Refill.greedy(1, Duration.ofMinutes(1))))).build();
        return QuotaConfig.builder().plan(free).rule(transfers).mode(mode).allow(allow).build();
    }

    private QuotaService service(MeterRegistry registry, QuotaConfig config) {
        return QuotaService.builder().store(InMemoryStore.builder().clock(clock).build()).config(config).clock(clock)
                .listener(new MicrometerQuotaListener(registry)).build();
    }

    private static double decisions(MeterRegistry registry, String plan, String rule, String policy, String outcome) {
        var counter = registry.find("quota.decisions")
                .tags("plan", plan, "rule", rule, "policy", policy, "outcome", outcome).counter();
        return counter == null ? 0 : counter.count();
    }

    @Test
    void decisions_areCountedByPlanRulePolicyAndOutcome_andTimed() {
        var registry = new SimpleMeterRegistry();
        QuotaService service = service(registry, config(Mode.ENFORCE, new AllowList(Set.of("batch"), Set.of(), List.of())));

        Customer bob = Customer.of("bob", "free");
        service.decide(bob, "transfers");
        service.decide(bob, "transfers");
        service.decide(alice, null);
        service.decide(alice, null);
        service.decide(alice, null);
        service.decide(Customer.of("batch", "free"), null);

        assertThat(decisions(registry, "free", "transfers", "none", "allowed")).isEqualTo(1);
        assertThat(decisions(registry, "free", "transfers", "transfers-per-minute", "rejected")).isEqualTo(1);
        assertThat(decisions(registry, "free", "none", "none", "allowed")).isEqualTo(2);
        assertThat(decisions(registry, "free", "none", "free-burst", "rejected")).isEqualTo(1);
        assertThat(decisions(registry, "free", "none", "none", "bypassed")).isEqualTo(1);
        assertThat(registry.get("quota.decision.latency").timer().count()).isEqualTo(6);
        assertThat(registry.find("quota.decisions").tagKeys("plan", "rule", "policy", "outcome").counters())
                .allSatisfy(c -> assertThat(c.getId().getTags()).noneMatch(t -> t.getValue().contains("alice")));
    }

    @Test
    void shadowRejections_haveTheirOwnOutcome() {
        var registry = new SimpleMeterRegistry();
        QuotaService service = service(registry, config(Mode.SHADOW, AllowList.NONE));

        for (int i = 0; i < 3; i++) {
            service.decide(alice, null);
        }

        assertThat(decisions(registry, "free", "none", "free-burst", "shadow_rejected")).isEqualTo(1);
    }

    /** A store whose every call fails: as one failed call, or as an established outage. */
    private static QuotaStore failing(boolean outage) {
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

    private static double fallbacks(MeterRegistry registry, String fallback, String reason) {
        return registry.get("quota.fallback.decisions").tags("fallback", fallback, "reason", reason).counter().count();
    }

    @Test
    void decisionsTheStoreDidNotMake_areCountedByFallbackAndReason() {
        var registry = new SimpleMeterRegistry();
        QuotaConfig config = config(Mode.ENFORCE, AllowList.NONE);
        try (QuotaService slow = QuotaService.builder().store(failing(false)).config(config).clock(clock)
                .listener(new MicrometerQuotaListener(registry)).build();
             QuotaService down = QuotaService.builder().store(failing(true)).config(config).clock(clock)
                     .listener(new MicrometerQuotaListener(registry)).build()) {
            slow.decide(alice, null);
            slow.decide(alice, null);
            down.decide(alice, null);
        }

        assertThat(fallbacks(registry, "shed", "call_failed")).isEqualTo(2);
        assertThat(fallbacks(registry, "local", "outage")).isEqualTo(1);
        assertThat(fallbacks(registry, "open", "outage")).isZero();
        assertThat(fallbacks(registry, "closed", "outage")).isZero();
    }

    @Test
    void storeErrorsFallbackAndReloads_areReported() {
        var registry = new SimpleMeterRegistry();
        var listener = new MicrometerQuotaListener(registry);

        listener.onStoreFailure(new IllegalStateException("down"));
        listener.onStoreFailure(QuotaStoreException.inDoubt("write in doubt", new IllegalStateException("timeout")));
        listener.onFallback(true);
        double fallbackWhileDown = registry.get("quota.fallback.active").gauge().value();
        listener.onFallback(false);
        listener.onReload(true, 7);
        listener.onReload(false, 7);
        listener.onReload(false, 7);

        assertThat(registry.get("quota.store.errors").counter().count()).isEqualTo(2);
        assertThat(registry.get("quota.store.in.doubt").counter().count()).isEqualTo(1);
        assertThat(fallbackWhileDown).isEqualTo(1);
        assertThat(registry.get("quota.fallback.active").gauge().value()).isZero();
        assertThat(registry.get("quota.config.reloads").tag("result", "applied").counter().count()).isEqualTo(1);
        assertThat(registry.get("quota.config.reloads").tag("result", "rejected").counter().count()).isEqualTo(2);
        assertThat(registry.get("quota.config.version").gauge().value()).isEqualTo(7);
    }

    @Test
    void failedKeys_areCountedByOutcome() {
        var registry = new SimpleMeterRegistry();
        QuotaService service = service(registry, config(Mode.ENFORCE, AllowList.NONE));

        for (int i = 0; i < 12; i++) {
            service.identify(RequestFacts.of(Credential.apiKey("guess-" + i), ClientAddresses.parse("203.0.113.7")));
        }

        assertThat(registry.get("quota.failed.keys").tag("outcome", "allowed").counter().count()).isEqualTo(10);
        assertThat(registry.get("quota.failed.keys").tag("outcome", "rejected").counter().count()).isEqualTo(2);
    }

    @Test
    void decisionSeries_areCappedSoUnknownPlansCannotExplodeCardinality() {
        var registry = new SimpleMeterRegistry();
        var listener = new MicrometerQuotaListener(registry);
        QuotaDecision bypassed = QuotaDecision.bypassed();

        for (int i = 0; i < MicrometerQuotaListener.MAX_SERIES + 50; i++) {
            listener.onDecision(Customer.of("c" + i, "plan-" + i), null, bypassed, Duration.ofMillis(1));
        }

        assertThat(registry.find("quota.decisions").counters()).hasSize(MicrometerQuotaListener.MAX_SERIES + 1);
        assertThat(decisions(registry, "other", "other", "other", "bypassed")).isEqualTo(50);
    }

    @Test
    void prometheusScrape_exposesTheNamesTheDashboardQueries() {
        var registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        QuotaService service = service(registry, config(Mode.ENFORCE, AllowList.NONE));
        service.decide(alice, null);
        service.decide(alice, null);
        service.decide(alice, null);
        service.reload(config(Mode.ENFORCE, AllowList.NONE));

        String scrape = registry.scrape();

        assertThat(scrape)
                .contains("quota_decisions_total{outcome=\"allowed\",plan=\"free\",policy=\"none\",rule=\"none\"} 2")
                .contains("quota_decisions_total{outcome=\"rejected\",plan=\"free\",policy=\"free-burst\",rule=\"none\"} 1")
                .contains("quota_decision_latency_seconds_bucket{le=")
                .contains("quota_decision_latency_seconds_count 3")
                .contains("quota_store_errors_total 0")
                .contains("quota_fallback_active 0")
                .contains("quota_config_reloads_total{result=\"applied\"} 1")
                .contains("quota_config_reloads_total{result=\"rejected\"} 0")
                .contains("quota_failed_keys_total{outcome=\"rejected\"} 0")
                .doesNotContain("alice");
    }

    @Test
    void limitStatusOfAmountDecisions_isNotATag() {
        var registry = new SimpleMeterRegistry();
        var listener = new MicrometerQuotaListener(registry);
        Limit daily = new Limit("daily", 1_000_000, Refill.greedy(1_000_000, Duration.ofDays(1)));
        LimitStatus status = LimitStatus.of("transfer-amount-daily", daily, LimitStatus.Role.AMOUNT, 12_345,
                Duration.ofHours(1), Duration.ofHours(1));
        QuotaDecision rejected = QuotaDecision.rejected(status, Duration.ofHours(1));

        listener.onDecision(alice, "transfer-amount", rejected, Duration.ofMillis(2));

        assertThat(decisions(registry, "free", "transfer-amount", "transfer-amount-daily", "rejected")).isEqualTo(1);
        assertThat(registry.find("quota.decisions").counters()).singleElement()
                .satisfies(c -> assertThat(c.getId().getTags().toString()).doesNotContain("12345"));
    }

    @Test
    void settles_areCountedByOutcome_andTheTokensTheyMovedByDirection() {
        var registry = new SimpleMeterRegistry();
        Plan metered = Plan.of("metered", List.of(new Limit("burst", 100, Refill.greedy(100, Duration.ofHours(1)))),
                FailurePolicy.LOCAL);
        Rule export = Rule.builder("export").cost(10).build();
        QuotaService service = service(registry, QuotaConfig.builder().plan(metered).rule(export).build());
        Customer carol = Customer.of("carol", "metered");
        QuotaDecision rows37 = service.decide(carol, "export");
        QuotaDecision rows4 = service.decide(carol, "export");

        service.settle(rows37, 37);
        service.settle(rows4, 4);
        service.settle(rows37, 40);

        assertThat(settles(registry, "charged")).isEqualTo(1);
        assertThat(settles(registry, "given_back")).isEqualTo(1);
        assertThat(settles(registry, "already_settled")).isEqualTo(1);
        assertThat(settles(registry, "refunded")).isZero();
        assertThat(registry.get("quota.settle.tokens").tag("direction", "charged").counter().count()).isEqualTo(27);
        assertThat(registry.get("quota.settle.tokens").tag("direction", "given_back").counter().count()).isEqualTo(6);
    }

    private static double settles(MeterRegistry registry, String outcome) {
        return registry.get("quota.settles").tag("outcome", outcome).counter().count();
    }
}
