package dev.quota.opentelemetry;

import dev.quota.core.LimitStatus;
import dev.quota.core.QuotaDecision;
import dev.quota.core.Settlement;
import dev.quota.core.TokenLeasing;
import dev.quota.core.resilience.CircuitBreakerStore;
import io.opentelemetry.api.common.AttributeKey;
import java.util.List;
import java.util.Locale;

/**
 * The one place that names what this module publishes: instruments, attribute keys and their
 * values. docs/opentelemetry.md is the table of them; a name changed here changes it there.
 *
 * <p>Every value comes from an enum or from the config (plan, rule and limit names), never from a
 * customer, a key or an address.
 */
final class Names {

    static final String SCOPE = "dev.quota";

    static final String DECISIONS = "quota.decisions";
    static final String DECISION_DURATION = "quota.decision.duration";
    static final String LEASES_HELD = "quota.leases.held";
    static final String FALLBACK_DECISIONS = "quota.fallback.decisions";
    static final String FALLBACK_ACTIVE = "quota.fallback.active";
    static final String SETTLES = "quota.settles";
    static final String STORE_ERRORS = "quota.store.errors";
    static final String BREAKER_STATE = "quota.store.breaker.state";
    static final String RELOADS = "quota.config.reloads";
    static final String CONFIG_VERSION = "quota.config.version";
    static final String TOP_REFUSALS = "quota.top.refusals";
    static final String TOP_SPENDING = "quota.top.spending";
    static final String FAILED_KEYS = "quota.failed_keys";
    static final String LEASED_TOKENS = "quota.leased.tokens";
    static final String LEASED_BATCHES = "quota.leased.batches";
    static final String LEASED_TOKENS_HELD = "quota.leased.tokens.held";
    /** The span this module starts when asked ({@link OpenTelemetryQuotaListener.Builder#decisionSpans}). */
    static final String DECISION_SPAN = "quota.decision";
    /** The event a refusal adds to the span. */
    static final String REFUSED_EVENT = "quota.refused";

    static final AttributeKey<String> RESULT = AttributeKey.stringKey("quota.result");
    static final AttributeKey<String> PLAN = AttributeKey.stringKey("quota.plan");
    static final AttributeKey<String> RULE = AttributeKey.stringKey("quota.rule");
    static final AttributeKey<String> LIMIT = AttributeKey.stringKey("quota.limit");
    static final AttributeKey<String> LIMIT_KIND = AttributeKey.stringKey("quota.limit.kind");
    static final AttributeKey<String> FALLBACK = AttributeKey.stringKey("quota.fallback");
    static final AttributeKey<String> FALLBACK_REASON = AttributeKey.stringKey("quota.fallback.reason");
    static final AttributeKey<String> SETTLE_OUTCOME = AttributeKey.stringKey("quota.settle.outcome");
    static final AttributeKey<Boolean> IN_DOUBT = AttributeKey.booleanKey("quota.store.in_doubt");
    static final AttributeKey<String> BREAKER = AttributeKey.stringKey("quota.breaker.state");
    static final AttributeKey<String> RELOAD_RESULT = AttributeKey.stringKey("quota.reload.result");
    static final AttributeKey<String> LEASE_EVENT = AttributeKey.stringKey("quota.lease.event");
    // span only: per request, so never on a metric
    static final AttributeKey<Long> LIMIT_CAPACITY = AttributeKey.longKey("quota.limit.capacity");
    static final AttributeKey<Long> LIMIT_REMAINING = AttributeKey.longKey("quota.limit.remaining");
    static final AttributeKey<Double> RETRY_AFTER = AttributeKey.doubleKey("quota.retry_after");

    /**
     * The bucket boundaries advised for {@link #DECISION_DURATION}, in seconds: a decision on the
     * in-JVM store takes microseconds, one Redis round trip a few hundred of them to a few
     * milliseconds, and the store's command timeout (2 s by default) bounds the slowest.
     */
    static final List<Double> DURATION_BOUNDARIES = List.of(0.0001, 0.00025, 0.0005, 0.001,
            0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5);

    private Names() {
    }

    /**
     * {@code quota.result}: {@code admitted}, {@code refused}, {@code exceeds_limit},
     * {@code shadow_refused}, {@code unenforced}, {@code unavailable}, {@code bypassed}.
     */
    static String result(QuotaDecision.Outcome outcome) {
        return switch (outcome) {
            case ALLOWED -> "admitted";
            case REJECTED -> "refused";
            case EXCEEDS_LIMIT -> "exceeds_limit";
            case SHADOW_REJECTED -> "shadow_refused";
            case UNENFORCED -> "unenforced";
            case UNAVAILABLE -> "unavailable";
            case BYPASSED -> "bypassed";
        };
    }

    /** {@code quota.limit.kind}: what the limit that refused counts. */
    static String kind(LimitStatus.Role role) {
        return role.name().toLowerCase(Locale.ROOT);
    }

    /** {@code quota.fallback}: {@code local}, {@code open}, {@code closed}, {@code shed}. */
    static String fallback(QuotaDecision.Fallback.Kind kind) {
        return kind.name().toLowerCase(Locale.ROOT);
    }

    /**
     * {@code quota.fallback.reason}: {@code outage} (an established outage: the failure policy
     * answered) or {@code call_failed} (this call failed while the store serves others).
     */
    static String fallbackReason(QuotaDecision.Fallback.Kind kind) {
        return kind == QuotaDecision.Fallback.Kind.SHED ? "call_failed" : "outage";
    }

    /** {@code quota.settle.outcome}: the settlement's outcome in lower case. */
    static String settle(Settlement.Outcome outcome) {
        return outcome.name().toLowerCase(Locale.ROOT);
    }

    /** {@code quota.lease.event}: {@code taken}, {@code returned}, {@code expired}, {@code lost}. */
    static String leaseEvent(TokenLeasing.Event event) {
        return event.name().toLowerCase(Locale.ROOT);
    }

    /** {@code quota.breaker.state}: {@code closed}, {@code open}, {@code half_open}. */
    static String breaker(CircuitBreakerStore.State state) {
        return state.name().toLowerCase(Locale.ROOT);
    }
}
