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
import dev.quota.core.store.InMemoryStore;
import dev.quota.testkit.MutableClock;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.data.MetricDataType;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
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

/**
 * docs/grafana-dashboard-opentelemetry.json charts only series and labels this module publishes,
 * under the names the OTLP-to-Prometheus translation gives them (docs/opentelemetry.md): a renamed
 * instrument or attribute breaks it here.
 */
class DashboardTest {

    private static final Path DASHBOARD = Path.of("..", "docs", "grafana-dashboard-opentelemetry.json");

    /** Prometheus's translation with unit suffixes: dots to underscores, {@code s} adds _seconds, counters _total. */
    static Set<String> prometheusNames(MetricData metric) {
        String base = metric.getName().replace('.', '_') + ("s".equals(metric.getUnit()) ? "_seconds" : "");
        if (metric.getType() == MetricDataType.HISTOGRAM) {
            return Set.of(base + "_bucket", base + "_sum", base + "_count");
        }
        boolean counter = metric.getType() == MetricDataType.LONG_SUM && metric.getLongSumData().isMonotonic();
        return Set.of(counter ? base + "_total" : base);
    }

    @Test
    void everySeriesAndLabelTheDashboardQueries_isPublished() throws IOException {
        InMemoryMetricReader reader = InMemoryMetricReader.create();
        OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
                .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(reader).build()).build();
        MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
        OpenTelemetryQuotaListener listener = OpenTelemetryQuotaListener.create(sdk);
        Plan free = Plan.of("free", List.of(new Limit("burst", 1, Refill.greedy(1, Duration.ofHours(1)))),
                FailurePolicy.LOCAL);
        Rule transfers = Rule.builder("transfers").concurrency(Concurrency.of(2)).build();
        QuotaService service = QuotaService.builder()
                .store(CircuitBreakerStore.builder(InMemoryStore.builder().clock(clock).build()).build())
                .config(QuotaConfig.builder().plan(free).rule(transfers).mode(Mode.ENFORCE).allow(AllowList.NONE).build())
                .clock(clock).listener(listener).build();
        listener.observe(service);
        service.decide(Customer.of("alice", "free"), "transfers");
        service.decide(Customer.of("alice", "free"), "transfers");
        listener.onReload(true, 2);
        listener.onLeasedTokens(dev.quota.core.TokenLeasing.Event.TAKEN, "free-burst", 2);
        listener.onStoreFailure(new QuotaStoreException("down (test)"));
        listener.onFailedKey(QuotaDecision.allowed(List.of()));

        Set<String> published = new TreeSet<>();
        Set<String> labels = new TreeSet<>(Set.of("instance", "le"));
        for (MetricData metric : reader.collectAllMetrics()) {
            published.addAll(prometheusNames(metric));
            metric.getData().getPoints().forEach(point -> point.getAttributes().forEach(
                    (key, value) -> labels.add(key.getKey().replace('.', '_'))));
        }
        String dashboard = Files.readString(DASHBOARD);
        // a series is followed by its selector (every query has one) or is label_values' first argument
        Set<String> queried = matches(dashboard, "quota_[a-z_]+(?=\\{|, instance\\))");
        Set<String> labelsUsed = new TreeSet<>();
        labelsUsed.addAll(matches(dashboard, "\\{\\{(\\w+)\\}\\}", 1));
        Matcher by = Pattern.compile("by \\(([\\w, ]+)\\)").matcher(dashboard);
        while (by.find()) {
            for (String label : by.group(1).split(",\\s*", -1)) {
                labelsUsed.add(label);
            }
        }
        labelsUsed.addAll(matches(dashboard, "[,{](\\w+)=~", 1));

        assertThat(queried).contains("quota_decisions_total", "quota_decision_duration_seconds_bucket",
                "quota_store_breaker_state", "quota_leases_held", "quota_top_refusals", "quota_leased_tokens_total",
                "quota_leased_batches_total", "quota_leased_tokens_held");
        assertThat(published).containsAll(queried);
        assertThat(labels).containsAll(labelsUsed);
        listener.close();
        sdk.close();
    }

    private static Set<String> matches(String text, String regex) {
        return matches(text, regex, 0);
    }

    private static Set<String> matches(String text, String regex, int group) {
        Set<String> found = new TreeSet<>();
        Matcher matcher = Pattern.compile(regex).matcher(text);
        while (matcher.find()) {
            found.add(matcher.group(group));
        }
        return found;
    }
}
