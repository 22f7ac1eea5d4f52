package dev.quota.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.AllowList;
import dev.quota.core.Customer;
import dev.quota.core.Mode;
import dev.quota.core.QuotaDecision;
import dev.quota.core.QuotaService;
import dev.quota.core.store.InMemoryStore;
import dev.quota.testkit.MutableClock;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The decision on the request's span, read from the SDK's in-memory span exporter. */
class DecisionSpansTest {

    private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
    private final Customer alice = Customer.of("alice", "free");
    private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
    private final OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
            .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build())
            .build();
    private final Tracer requests = sdk.getTracer("test-server");

    @AfterEach
    void close() {
        sdk.close();
    }

    private QuotaService service(OpenTelemetryQuotaListener listener) {
        return QuotaService.builder().store(InMemoryStore.builder().clock(clock).build())
                .config(OpenTelemetryQuotaListenerTest.config(Mode.ENFORCE, AllowList.NONE)).clock(clock)
                .listener(listener).build();
    }

    /** Decides inside a request span, as a server's instrumentation makes one, and returns that span. */
    private SpanData inRequest(QuotaService service, String rule) {
        Span request = requests.spanBuilder("GET /accounts").startSpan();
        try (Scope ignored = request.makeCurrent()) {
            service.decide(alice, rule);
        } finally {
            request.end();
        }
        return exporter.getFinishedSpanItems().stream().filter(s -> s.getName().equals("GET /accounts"))
                .reduce((first, second) -> second).orElseThrow();
    }

    @Test
    void admittedDecision_setsResultLimitAndRemaining_onTheCurrentSpan_withoutASpanOfItsOwn() {
        QuotaService service = service(OpenTelemetryQuotaListener.create(sdk));

        SpanData request = inRequest(service, null);

        assertThat(request.getAttributes().asMap()).isEqualTo(Attributes.builder()
                .put(Names.RESULT, "admitted").put(Names.PLAN, "free").put(Names.LIMIT, "free-burst")
                .put(Names.LIMIT_KIND, "plan").put(Names.LIMIT_CAPACITY, 2L).put(Names.LIMIT_REMAINING, 1L).build().asMap());
        assertThat(request.getEvents()).isEmpty();
        assertThat(exporter.getFinishedSpanItems()).hasSize(1);
    }

    @Test
    void refusal_setsTheLimitThatRefusedAndRetryAfter_andAddsARefusedEvent() {
        QuotaService service = service(OpenTelemetryQuotaListener.create(sdk));
        inRequest(service, "transfers");

        SpanData refused = inRequest(service, "transfers");

        assertThat(refused.getAttributes().asMap()).isEqualTo(Attributes.builder()
                .put(Names.RESULT, "refused").put(Names.PLAN, "free").put(Names.RULE, "transfers")
                .put(Names.LIMIT, "transfers-per-minute").put(Names.LIMIT_KIND, "rule")
                .put(Names.LIMIT_CAPACITY, 1L).put(Names.LIMIT_REMAINING, 0L).put(Names.RETRY_AFTER, 60.0).build().asMap());
        List<EventData> events = refused.getEvents();
        assertThat(events).hasSize(1);
        assertThat(events.get(0).getName()).isEqualTo("quota.refused");
        assertThat(events.get(0).getAttributes().asMap()).isEqualTo(Attributes.builder()
                .put(Names.RESULT, "refused").put(Names.LIMIT, "transfers-per-minute").put(Names.LIMIT_KIND, "rule")
                .put(Names.RETRY_AFTER, 60.0).build().asMap());
    }

    @Test
    void decisionOutsideAnySpan_startsNoSpan() {
        QuotaService service = service(OpenTelemetryQuotaListener.create(sdk));

        service.decide(alice, null);

        assertThat(exporter.getFinishedSpanItems()).isEmpty();
    }

    @Test
    void decisionSpans_whenAsked_areChildrenOfTheCurrentSpan_withTheSameAttributes() {
        QuotaService service = service(OpenTelemetryQuotaListener.builder(sdk).decisionSpans(true).build());
        inRequest(service, null);
        inRequest(service, null);
        exporter.reset();

        SpanData request = inRequest(service, null);

        List<SpanData> own = exporter.getFinishedSpanItems().stream().filter(s -> s.getName().equals("quota.decision"))
                .toList();
        assertThat(own).hasSize(1);
        assertThat(own.get(0).getParentSpanId()).isEqualTo(request.getSpanId());
        assertThat(own.get(0).getTraceId()).isEqualTo(request.getTraceId());
        assertThat(own.get(0).getAttributes().asMap()).isEqualTo(request.getAttributes().asMap());
        assertThat(own.get(0).getAttributes().get(Names.RESULT)).isEqualTo("refused");
        assertThat(own.get(0).getEvents()).extracting(EventData::getName).containsExactly("quota.refused");
        assertThat(own.get(0).getInstrumentationScopeInfo().getName()).isEqualTo("dev.quota");
    }

    @Test
    void bypassedDecision_carriesTheResultAndPlanOnly() {
        OpenTelemetryQuotaListener listener = OpenTelemetryQuotaListener.create(sdk);
        Span request = requests.spanBuilder("GET /accounts").startSpan();
        try (Scope ignored = request.makeCurrent()) {
            listener.onDecision(Customer.of("batch", "free"), null, QuotaDecision.bypassed(), java.time.Duration.ZERO);
        } finally {
            request.end();
        }

        assertThat(exporter.getFinishedSpanItems().get(0).getAttributes().asMap()).isEqualTo(Attributes.builder()
                .put(Names.RESULT, "bypassed").put(Names.PLAN, "free").build().asMap());
    }
}
