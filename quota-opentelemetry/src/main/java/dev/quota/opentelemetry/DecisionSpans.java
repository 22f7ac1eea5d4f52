package dev.quota.opentelemetry;

import dev.quota.core.LimitStatus;
import dev.quota.core.QuotaDecision;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Writes a decision onto the request's span: on {@link Span#current()} when it is valid and
 * recording, and, when asked, on a {@code quota.decision} span of its own, a child of the current
 * one that covers the decision's time. A refusal adds a {@code quota.refused} event.
 *
 * <p>The limit described is the one that refused (or, in shadow mode, would have), else the
 * tightest limit the client is told of in the {@code RateLimit} headers; a decision without either
 * (bypassed, unenforced) gets the result only.
 */
final class DecisionSpans {

    private final @Nullable Tracer tracer;

    /** @param tracer the tracer of the spans to start, or null to start none */
    DecisionSpans(@Nullable Tracer tracer) {
        this.tracer = tracer;
    }

    void record(String plan, @Nullable String rule, QuotaDecision decision, Duration elapsed) {
        Span current = Span.current();
        boolean onCurrent = current.getSpanContext().isValid() && current.isRecording();
        if (!onCurrent && tracer == null) {
            return;
        }
        Attributes attributes = attributes(plan, rule, decision);
        Attributes refusal = decision.allowed() ? Attributes.empty() : refusal(decision);
        if (onCurrent) {
            describe(current, attributes, refusal, decision);
        }
        if (tracer != null) {
            Instant end = Instant.now();
            Span own = tracer.spanBuilder(Names.DECISION_SPAN).setSpanKind(SpanKind.INTERNAL)
                    .setStartTimestamp(end.minus(elapsed)).startSpan();
            describe(own, attributes, refusal, decision);
            own.end(end.getEpochSecond() * 1_000_000_000L + end.getNano(), TimeUnit.NANOSECONDS);
        }
    }

    private static void describe(Span span, Attributes attributes, Attributes refusal, QuotaDecision decision) {
        span.setAllAttributes(attributes);
        if (!decision.allowed()) {
            span.addEvent(Names.REFUSED_EVENT, refusal);
        }
    }

    /** The span's attributes: result, plan, rule, and where the described limit stands. */
    static Attributes attributes(String plan, @Nullable String rule, QuotaDecision decision) {
        AttributesBuilder builder = Attributes.builder()
                .put(Names.RESULT, Names.result(decision.outcome()))
                .put(Names.PLAN, plan);
        if (rule != null) {
            builder.put(Names.RULE, rule);
        }
        LimitStatus limit = described(decision);
        if (limit != null) {
            builder.put(Names.LIMIT, limit.policy())
                    .put(Names.LIMIT_KIND, Names.kind(limit.role()))
                    .put(Names.LIMIT_CAPACITY, limit.limit().capacity())
                    .put(Names.LIMIT_REMAINING, limit.remaining());
        }
        if (!decision.retryAfter().isZero()) {
            builder.put(Names.RETRY_AFTER, seconds(decision.retryAfter()));
        }
        return builder.build();
    }

    /** The refusal event's attributes: result, the limit that refused, its kind, the retry-after when there is one. */
    private static Attributes refusal(QuotaDecision decision) {
        AttributesBuilder builder = Attributes.builder().put(Names.RESULT, Names.result(decision.outcome()));
        LimitStatus violated = decision.violated();
        if (violated != null) {
            builder.put(Names.LIMIT, violated.policy()).put(Names.LIMIT_KIND, Names.kind(violated.role()));
        }
        QuotaDecision.Fallback fallback = decision.fallback();
        if (fallback != null) {
            builder.put(Names.FALLBACK, Names.fallback(fallback.kind()));
        }
        if (!decision.retryAfter().isZero()) {
            builder.put(Names.RETRY_AFTER, seconds(decision.retryAfter()));
        }
        return builder.build();
    }

    private static @Nullable LimitStatus described(QuotaDecision decision) {
        LimitStatus violated = decision.violated();
        return violated != null ? violated : decision.tightest();
    }

    static double seconds(Duration duration) {
        return duration.getSeconds() + duration.getNano() / 1e9;
    }
}
