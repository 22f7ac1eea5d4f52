package dev.quota.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Customer;
import dev.quota.core.QuotaService;
import dev.quota.opentelemetry.OpenTelemetryQuotaListener;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * quota-opentelemetry wired by quota-cdi with no code of the application's: through the
 * server's {@code OpenTelemetry} bean, else {@code GlobalOpenTelemetry}, and not twice when the
 * application registers its own listener.
 */
class OpenTelemetryWiringTest {

    private static final AttributeKey<String> RESULT = AttributeKey.stringKey("quota.result");
    private static final AttributeKey<String> PLAN = AttributeKey.stringKey("quota.plan");

    static final InMemoryMetricReader reader = InMemoryMetricReader.create();
    static final OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
            .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(reader).build()).build();

    /** The server's OpenTelemetry, as MicroProfile Telemetry and Quarkus make it injectable. */
    @ApplicationScoped
    public static class ServerTelemetry {
        @Produces
        @ApplicationScoped
        OpenTelemetry openTelemetry() {
            return sdk;
        }
    }

    /** Whether {@link LateTelemetry} can make its bean yet. */
    static final AtomicBoolean ready = new AtomicBoolean();

    /** A server whose OpenTelemetry bean cannot be made until it has started, as on Quarkus. */
    @ApplicationScoped
    public static class LateTelemetry {
        @Produces
        @Dependent
        OpenTelemetry openTelemetry() {
            if (!ready.get()) {
                throw new IllegalStateException("not initialized yet (test)");
            }
            return sdk;
        }
    }

    /** An application that registers the listener itself (a final class: a singleton, not proxied). */
    @ApplicationScoped
    public static class OwnListener {
        @Produces
        @Singleton
        OpenTelemetryQuotaListener listener() {
            return OpenTelemetryQuotaListener.builder(sdk).decisionSpans(true).build();
        }
    }

    @AfterEach
    void resetGlobal() {
        GlobalOpenTelemetry.resetForTest();
    }

    /** Three requests of the plans file's customer (plan small: 2 an hour): 2 admitted, 1 refused. */
    private static void decideThreeTimes(Class<?>... beans) {
        try (SystemProperties ignored = new SystemProperties()) {
            WeldContainer container = CdiWiringTest.weld(beans).initialize();
            try {
                QuotaService service = container.select(QuotaService.class).get();
                Customer customer = service.customerForApiKey(CdiWiringTest.PLANS_KEY);
                for (int i = 0; i < 3; i++) {
                    service.decide(customer, null);
                }
            } finally {
                container.shutdown();
            }
        }
    }

    /** The points of {@code quota.decisions} in plan small, by result; cumulative over this class's tests. */
    private static Map<String, Long> decisions() {
        return reader.collectAllMetrics().stream().filter(m -> m.getName().equals("quota.decisions"))
                .map(MetricData::getLongSumData).flatMap(sum -> sum.getPoints().stream())
                .filter(p -> "small".equals(p.getAttributes().get(PLAN)))
                .collect(Collectors.toMap(p -> p.getAttributes().get(RESULT), LongPointData::getValue, Long::sum));
    }

    @Test
    void serversOpenTelemetryBean_getsTheDecisions_withoutAnyCodeOfTheApplications() {
        Map<String, Long> before = decisions();

        decideThreeTimes(ServerTelemetry.class);

        assertThat(decisions().getOrDefault("admitted", 0L) - before.getOrDefault("admitted", 0L)).isEqualTo(2);
        assertThat(decisions().getOrDefault("refused", 0L) - before.getOrDefault("refused", 0L)).isEqualTo(1);
    }

    @Test
    void withoutABean_globalOpenTelemetryGetsThem() {
        GlobalOpenTelemetry.set(sdk);
        Map<String, Long> before = decisions();

        decideThreeTimes();

        assertThat(decisions().getOrDefault("admitted", 0L) - before.getOrDefault("admitted", 0L)).isEqualTo(2);
    }

    @Test
    void openTelemetryBeanThatCannotBeMadeAtStart_isUsedFromTheFirstDecisionAfter_andTheDecisionsStand() {
        Map<String, Long> before = decisions();
        ready.set(false);
        try (SystemProperties ignored = new SystemProperties()) {
            WeldContainer container = CdiWiringTest.weld(LateTelemetry.class).initialize();
            try {
                QuotaService service = container.select(QuotaService.class).get();
                Customer customer = service.customerForApiKey(CdiWiringTest.PLANS_KEY);
                assertThat(service.decide(customer, null).allowed()).as("decided while the bean cannot be made").isTrue();
                ready.set(true);
                service.decide(customer, null);
                service.decide(customer, null);
            } finally {
                container.shutdown();
            }
        }

        assertThat(decisions().getOrDefault("admitted", 0L) - before.getOrDefault("admitted", 0L)).isEqualTo(1);
        assertThat(decisions().getOrDefault("refused", 0L) - before.getOrDefault("refused", 0L)).isEqualTo(1);
    }

    @Test
    void applicationsOwnListener_isNotDoubled() {
        Map<String, Long> before = decisions();

        decideThreeTimes(ServerTelemetry.class, OwnListener.class);

        assertThat(decisions().getOrDefault("admitted", 0L) - before.getOrDefault("admitted", 0L)).isEqualTo(2);
        assertThat(decisions().getOrDefault("refused", 0L) - before.getOrDefault("refused", 0L)).isEqualTo(1);
    }

    @Test
    void theWiring_isSaidInTheStartUpSummary() {
        try (SystemProperties ignored = new SystemProperties()) {
            WeldContainer container = CdiWiringTest.weld(ServerTelemetry.class).initialize();
            try {
                assertThat(container.select(QuotaProducers.class).get().quotas().summary())
                        .endsWith(", metrics and span attributes to OpenTelemetry (the application's"
                                + " OpenTelemetry bean, else GlobalOpenTelemetry)");
            } finally {
                container.shutdown();
            }
        }
    }
}
