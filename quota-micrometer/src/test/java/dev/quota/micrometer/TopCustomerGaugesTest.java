package dev.quota.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Customer;
import dev.quota.core.FailurePolicy;
import dev.quota.core.Limit;
import dev.quota.core.Plan;
import dev.quota.core.QuotaConfig;
import dev.quota.core.QuotaService;
import dev.quota.core.Refill;
import dev.quota.core.store.InMemoryStore;
import dev.quota.testkit.MutableClock;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class TopCustomerGaugesTest {

    private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final QuotaService service = QuotaService.builder()
            .store(InMemoryStore.builder().clock(clock).build())
            .config(QuotaConfig.builder().plan(Plan.of("free",
                    List.of(new Limit("burst", 3, Refill.greedy(1, Duration.ofHours(1)))), FailurePolicy.LOCAL)).build())
            .clock(clock)
            .build();

    private double gauge(String name, int rank) {
        return registry.get(name).tag("rank", Integer.toString(rank)).gauge().value();
    }

    @Test
    void gauges_showTheCountsByRank_withoutNamingAnyCustomer() {
        TopCustomerGauges.register(registry, service.admin());
        for (int i = 0; i < 5; i++) {
            service.decide(Customer.of("alice-4711", "free"), null); // 3 admitted, 2 refused
        }
        for (int i = 0; i < 4; i++) {
            service.decide(Customer.of("bob-0815", "free"), null);   // 3 admitted, 1 refused
        }
        service.decide(Customer.of("carol-42", "free"), null);       // 1 admitted

        assertThat(gauge("quota.top.refusals", 1)).isEqualTo(2);
        assertThat(gauge("quota.top.refusals", 2)).isEqualTo(1);
        assertThat(gauge("quota.top.refusals", 3)).isZero();
        assertThat(gauge("quota.top.spending", 1)).isEqualTo(3);
        assertThat(gauge("quota.top.spending", 2)).isEqualTo(3);
        assertThat(gauge("quota.top.spending", 3)).isEqualTo(1);

        String scrape = registry.scrape();
        assertThat(scrape).contains("quota_top_refusals{rank=\"1\"} 2.0", "quota_top_spending{rank=\"10\"} 0.0")
                .doesNotContain("alice-4711").doesNotContain("bob-0815").doesNotContain("carol-42");
        assertThat(registry.find("quota.top.refusals").gauges()).hasSize(10);
        assertThat(registry.find("quota.top.spending").gauges()).hasSize(10);
    }

    @Test
    void gauges_fallToZero_whenTheRefusalsLeaveTheWindow() {
        TopCustomerGauges.register(registry, service.admin());
        for (int i = 0; i < 4; i++) {
            service.decide(Customer.of("alice", "free"), null);
        }
        assertThat(gauge("quota.top.refusals", 1)).isEqualTo(1);

        clock.advance(Duration.ofMinutes(6));

        assertThat(gauge("quota.top.refusals", 1)).isZero();
        assertThat(gauge("quota.top.spending", 1)).isZero();
    }
}
