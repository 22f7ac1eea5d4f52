package dev.quota.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Customer;
import dev.quota.core.FailurePolicy;
import dev.quota.core.HandSweptLeases;
import dev.quota.core.Limit;
import dev.quota.core.Plan;
import dev.quota.core.QuotaConfig;
import dev.quota.core.QuotaDecision;
import dev.quota.core.QuotaService;
import dev.quota.core.Refill;
import dev.quota.core.TokenLeasing;
import dev.quota.core.store.InMemoryStore;
import dev.quota.testkit.MutableClock;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code quota.leased.tokens}, {@code quota.leased.batches} and {@code quota.leased.tokens.held}
 * from a real in-JVM store, time moved by hand and batches swept by the test. Plan {@code big}:
 * 10,000 an hour, refilled all at once; the leasing defaults make the 50th decision in a second
 * take a batch of ceil(50 x 0.5) = 25.
 */
class LeasedTokensTest {

    private static final Customer ACME = Customer.of("acme", "big");
    private static final String POLICY = "big-hourly";

    private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
    private final InMemoryStore store = InMemoryStore.builder().clock(clock).build();
    private final InMemoryMetricReader reader = InMemoryMetricReader.create();
    private final OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
            .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(reader).build()).build();
    private final OpenTelemetryQuotaListener listener = OpenTelemetryQuotaListener.create(sdk);
    private final QuotaService service = HandSweptLeases.byHand(QuotaService.builder().store(store).clock(clock)
            .config(QuotaConfig.builder()
                    .plan(Plan.of("big", List.of(new Limit("hourly", 10_000, Refill.interval(10_000, Duration.ofHours(1)))),
                            FailurePolicy.CLOSED))
                    .customer(ACME).build())
            .listener(listener)).build();

    @AfterEach
    void close() {
        listener.close();
        service.close();
        store.close();
        sdk.close();
    }

    private void decide(int times) {
        for (int i = 0; i < times; i++) {
            assertThat(service.decide(ACME, null).outcome()).isEqualTo(QuotaDecision.Outcome.ALLOWED);
        }
    }

    @Test
    void leasedTokens_countTheBatchTaken_whatExpiredAndWentBack_byLimit_andTheHeldGaugeWhatIsLeft() {
        listener.observe(service);
        decide(49);
        assertThat(metricOrNull(Names.LEASED_TOKENS)).as("cold: nothing leased").isNull();
        assertThat(longSums(Names.LEASED_TOKENS_HELD)).isEqualTo(Map.of(Attributes.empty(), 0L));

        decide(1); // the 50th in this second: a batch of 25 with it
        decide(5); // served from the batch
        assertThat(longSums(Names.LEASED_TOKENS)).isEqualTo(Map.of(event("taken"), 25L));
        assertThat(longSums(Names.LEASED_BATCHES)).isEqualTo(Map.of(Attributes.of(Names.LIMIT, POLICY), 1L));
        assertThat(longSums(Names.LEASED_TOKENS_HELD)).isEqualTo(Map.of(Attributes.empty(), 20L));

        clock.advance(Duration.ofMillis(500));
        HandSweptLeases.sweep(service);

        assertThat(longSums(Names.LEASED_TOKENS)).isEqualTo(Map.of(
                event("taken"), 25L, event("expired"), 20L, event("returned"), 20L));
        assertThat(longSums(Names.LEASED_BATCHES)).isEqualTo(Map.of(Attributes.of(Names.LIMIT, POLICY), 1L));
        assertThat(longSums(Names.LEASED_TOKENS_HELD)).isEqualTo(Map.of(Attributes.empty(), 0L));
        assertThat(service.leasedTokens()).isEqualTo(new TokenLeasing.Counts(1, 25, 5, 20, 1, 0, 0));
    }

    @Test
    void leasedTokenSeries_areCappedSoPolicyNamesCannotExplodeCardinality() {
        for (int i = 0; i < OpenTelemetryQuotaListener.MAX_SERIES + 50; i++) {
            listener.onLeasedTokens(TokenLeasing.Event.LOST, "plan-" + i + "-burst", 2);
        }

        Map<Attributes, Long> lost = longSums(Names.LEASED_TOKENS);
        assertThat(lost).hasSize(OpenTelemetryQuotaListener.MAX_SERIES + 1);
        assertThat(lost).containsEntry(Attributes.of(Names.LIMIT, "other", Names.LEASE_EVENT, "lost"), 100L);
    }

    @Test
    void instruments_haveTheDocumentedUnits() {
        listener.observe(service);
        decide(50);

        Map<String, String> units = reader.collectAllMetrics().stream()
                .collect(Collectors.toMap(MetricData::getName, MetricData::getUnit));
        assertThat(units).containsEntry(Names.LEASED_TOKENS, "{token}").containsEntry(Names.LEASED_BATCHES, "{batch}")
                .containsEntry(Names.LEASED_TOKENS_HELD, "{token}");
    }

    private static Attributes event(String event) {
        return Attributes.of(Names.LIMIT, POLICY, Names.LEASE_EVENT, event);
    }

    private MetricData metricOrNull(String name) {
        return reader.collectAllMetrics().stream().filter(m -> m.getName().equals(name)).findFirst().orElse(null);
    }

    /** Each point of a long sum by its attributes. */
    private Map<Attributes, Long> longSums(String name) {
        MetricData metric = metricOrNull(name);
        assertThat(metric).as(name).isNotNull();
        return metric.getLongSumData().getPoints().stream()
                .collect(Collectors.toMap(LongPointData::getAttributes, LongPointData::getValue));
    }
}
