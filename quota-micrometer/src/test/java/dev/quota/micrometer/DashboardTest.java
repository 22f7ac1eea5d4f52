package dev.quota.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Concurrency;
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
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** docs/grafana-dashboard.json charts only series this module publishes: a renamed meter breaks it here. */
class DashboardTest {

    private static final Path DASHBOARD = Path.of("..", "docs", "grafana-dashboard.json");

    @Test
    void everySeriesTheDashboardQueries_isInTheScrape() throws IOException {
        MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        QuotaConfig config = QuotaConfig.builder().plan(Plan.of("free",
                List.of(new Limit("burst", 1, Refill.greedy(1, Duration.ofHours(1)))), FailurePolicy.LOCAL)
                .withConcurrency(Concurrency.of(2))).build();
        MicrometerQuotaListener listener = new MicrometerQuotaListener(registry);
        listener.registerInFlight(config);
        QuotaService service = QuotaService.builder()
                .store(InMemoryStore.builder().clock(clock).build())
                .config(config)
                .clock(clock)
                .listener(listener)
                .build();
        TopCustomerGauges.register(registry, service.admin());
        listener.registerLeasing(service);
        service.decide(Customer.of("alice", "free"), null);

        Set<String> queried = new TreeSet<>();
        Matcher names = Pattern.compile("quota_[a-z_]+").matcher(Files.readString(DASHBOARD));
        while (names.find()) {
            queried.add(names.group());
        }
        String scrape = registry.scrape();

        assertThat(queried).contains("quota_top_refusals", "quota_top_spending", "quota_decisions_total",
                "quota_leased_tokens_total", "quota_leased_batches_total", "quota_leased_tokens_held");
        assertThat(queried).allSatisfy(name -> assertThat(scrape).containsPattern("(?m)^" + name + "[{ ]"));
    }
}
