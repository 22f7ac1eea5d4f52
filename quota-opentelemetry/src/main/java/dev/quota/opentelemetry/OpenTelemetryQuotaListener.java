package dev.quota.opentelemetry;

import dev.quota.core.Customer;
import dev.quota.core.LimitStatus;
import dev.quota.core.QuotaDecision;
import dev.quota.core.QuotaListener;
import dev.quota.core.QuotaService;
import dev.quota.core.QuotaStoreException;
import dev.quota.core.Settlement;
import dev.quota.core.TokenLeasing;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.metrics.LongCounter;
import io.opentelemetry.api.metrics.LongUpDownCounter;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.metrics.MeterBuilder;
import io.opentelemetry.api.trace.TracerBuilder;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes what a {@code QuotaService} does through the OpenTelemetry API: metrics shaped after
 * ASP.NET Core's {@code aspnetcore.rate_limiting.*}, and each decision on the request's span.
 * The application's SDK (its server's, or its own) decides where they go. Register it with
 * {@code QuotaService.builder().listener(OpenTelemetryQuotaListener.create(openTelemetry))}, then
 * {@link #observe} the built service (breaker state, config version, top customers); quota-cdi does both when this
 * module and the API are on the class path.
 *
 * <p>The instruments (scope {@value Names#SCOPE}); docs/opentelemetry.md has their attributes and
 * values, and the Prometheus names they get:
 * <ul>
 *   <li>{@code quota.decisions} counter {@code {decision}}: by {@code quota.result}, {@code quota.plan},
 *       {@code quota.rule}, {@code quota.limit} (the limit that refused), {@code quota.limit.kind},
 *       {@code quota.fallback};</li>
 *   <li>{@code quota.decision.duration} histogram, seconds, by {@code quota.result}, with bucket
 *       boundaries advised from 0.1 ms to 2.5 s;</li>
 *   <li>{@code quota.leases.held} up-down counter {@code {request}}: requests of this instance that
 *       hold in-flight leases now;</li>
 *   <li>{@code quota.fallback.decisions} counter, by {@code quota.fallback} and
 *       {@code quota.fallback.reason}, every series present from the start at 0;
 *       {@code quota.fallback.active}, 1 while the in-JVM fallback decides;</li>
 *   <li>{@code quota.settles} counter by {@code quota.settle.outcome}, every series present at 0;</li>
 *   <li>{@code quota.store.errors} counter by {@code quota.store.in_doubt};</li>
 *   <li>once the service is {@link #observe observed}: {@code quota.store.breaker.state}, 1 for the
 *       breaker's state and 0 for the others; {@code quota.config.version}; {@code quota.top.refusals}
 *       and {@code quota.top.spending} by {@code quota.rank};</li>
 *   <li>{@code quota.config.reloads} by {@code quota.reload.result}; {@code quota.failed_keys} by
 *       {@code quota.result};</li>
 *   <li>{@code quota.leased.tokens} counter {@code {token}} by {@code quota.limit} (the policy name
 *       of the leased bucket's first limit) and {@code quota.lease.event} ({@code taken},
 *       {@code returned}, {@code expired}, {@code lost}); {@code quota.leased.batches} by
 *       {@code quota.limit}; once the service is observed, {@code quota.leased.tokens.held}, the
 *       tokens this instance holds in batches now.</li>
 * </ul>
 *
 * <p>Bounded cardinality: attribute values come from enums and from config names (plans, rules,
 * limits), never from a customer's id, key or address. As a guard against plans that are not in the
 * config (a bypassed caller may name any plan), at most {@value #MAX_SERIES} attribute sets of
 * {@code quota.decisions} are kept; later ones count under {@code quota.plan}, {@code quota.rule}
 * and {@code quota.limit} {@code other}.
 *
 * <p>On {@link io.opentelemetry.api.trace.Span#current()}, when it is valid and recording, each
 * decision sets {@code quota.result}, {@code quota.plan}, {@code quota.rule}, {@code quota.limit},
 * {@code quota.limit.kind}, {@code quota.limit.capacity}, {@code quota.limit.remaining} and, when it
 * has one, {@code quota.retry_after} (seconds); a refusal adds a {@code quota.refused} event. It
 * starts no span of its own unless {@link Builder#decisionSpans} asks.
 */
public final class OpenTelemetryQuotaListener implements QuotaListener, AutoCloseable {

    /** The most distinct {@code quota.decisions} attribute sets: 1000. */
    public static final int MAX_SERIES = 1_000;

    private static final Logger log = LoggerFactory.getLogger(OpenTelemetryQuotaListener.class);
    private static final String OTHER = "other";

    private final Meter meter;
    private final LongCounter decisions;
    private final DoubleHistogram duration;
    private final LongUpDownCounter leasesHeld;
    private final LongCounter fallbacks;
    private final LongCounter settles;
    private final LongCounter storeErrors;
    private final LongCounter reloads;
    private final LongCounter failedKeys;
    private final LongCounter leasedTokens;
    private final LongCounter leasedBatches;
    /** The attribute sets of leased tokens per policy, at most {@link #MAX_SERIES} policies. */
    private final Map<String, LeaseSeries> leaseSeries = new ConcurrentHashMap<>();
    private final Map<SeriesKey, Attributes> series = new ConcurrentHashMap<>();
    private final Map<QuotaDecision.Outcome, Attributes> results = new EnumMap<>(QuotaDecision.Outcome.class);
    private final Map<QuotaDecision.Fallback.Kind, Attributes> fallbackKinds =
            new EnumMap<>(QuotaDecision.Fallback.Kind.class);
    private final Map<Settlement.Outcome, Attributes> settleOutcomes = new EnumMap<>(Settlement.Outcome.class);
    private final AtomicInteger fallbackActive = new AtomicInteger();
    /** The observable instruments' registrations, closed by {@link #close()}. */
    private final List<AutoCloseable> observers = new CopyOnWriteArrayList<>();
    private final DecisionSpans spans;

    private OpenTelemetryQuotaListener(Builder builder) {
        OpenTelemetry openTelemetry = builder.openTelemetry;
        MeterBuilder meterBuilder = openTelemetry.meterBuilder(Names.SCOPE);
        TracerBuilder tracerBuilder = openTelemetry.tracerBuilder(Names.SCOPE);
        String version = OpenTelemetryQuotaListener.class.getPackage().getImplementationVersion();
        if (version != null) {
            meterBuilder.setInstrumentationVersion(version);
            tracerBuilder.setInstrumentationVersion(version);
        }
        this.meter = meterBuilder.build();
        this.spans = new DecisionSpans(builder.decisionSpans ? tracerBuilder.build() : null);
        this.decisions = meter.counterBuilder(Names.DECISIONS).setUnit("{decision}")
                .setDescription("Quota decisions by result, plan, rule and the limit that refused").build();
        this.duration = meter.histogramBuilder(Names.DECISION_DURATION).setUnit("s")
                .setDescription("Time to decide one request or amount, store round trips included")
                .setExplicitBucketBoundariesAdvice(Names.DURATION_BOUNDARIES).build();
        this.leasesHeld = meter.upDownCounterBuilder(Names.LEASES_HELD).setUnit("{request}")
                .setDescription("Requests of this instance holding in-flight leases now").build();
        this.fallbacks = meter.counterBuilder(Names.FALLBACK_DECISIONS).setUnit("{decision}")
                .setDescription("Decisions the shared store did not make, by who answered instead and why").build();
        this.settles = meter.counterBuilder(Names.SETTLES).setUnit("{settle}")
                .setDescription("Costs settled after the fact, by what the settle did").build();
        this.storeErrors = meter.counterBuilder(Names.STORE_ERRORS).setUnit("{error}")
                .setDescription("Store calls that failed; the failure policy decided what callers saw").build();
        this.reloads = meter.counterBuilder(Names.RELOADS).setUnit("{reload}")
                .setDescription("Config reload attempts: applied, or rejected with the previous config kept").build();
        this.failedKeys = meter.counterBuilder(Names.FAILED_KEYS).setUnit("{request}")
                .setDescription("Failed API-key lookups counted per client address").build();
        this.leasedTokens = meter.counterBuilder(Names.LEASED_TOKENS).setUnit("{token}")
                .setDescription("Leased tokens of hot buckets taken in batches, returned, expired (then returned)"
                        + " or lost, per limit").build();
        this.leasedBatches = meter.counterBuilder(Names.LEASED_BATCHES).setUnit("{batch}")
                .setDescription("Batches of hot buckets' tokens taken, per limit").build();
        for (QuotaDecision.Outcome outcome : QuotaDecision.Outcome.values()) {
            results.put(outcome, Attributes.of(Names.RESULT, Names.result(outcome)));
        }
        for (QuotaDecision.Fallback.Kind kind : QuotaDecision.Fallback.Kind.values()) {
            Attributes attributes = Attributes.of(Names.FALLBACK, Names.fallback(kind),
                    Names.FALLBACK_REASON, Names.fallbackReason(kind));
            fallbackKinds.put(kind, attributes);
            fallbacks.add(0, attributes); // present at 0: alert on any increase
        }
        for (Settlement.Outcome outcome : Settlement.Outcome.values()) {
            Attributes attributes = Attributes.of(Names.SETTLE_OUTCOME, Names.settle(outcome));
            settleOutcomes.put(outcome, attributes);
            settles.add(0, attributes);
        }
        observers.add(meter.upDownCounterBuilder(Names.FALLBACK_ACTIVE).setUnit("{fallback}")
                .setDescription("1 while the in-JVM fallback (failure policy local) decides, else 0")
                .buildWithCallback(measurement -> measurement.record(fallbackActive.get())));
    }

    /** A listener with the defaults: no span of its own. */
    public static OpenTelemetryQuotaListener create(OpenTelemetry openTelemetry) {
        return builder(openTelemetry).build();
    }

    /**
     * A builder for a listener publishing through {@code openTelemetry} (the server's, or
     * {@code GlobalOpenTelemetry.get()}).
     *
     * @throws NullPointerException if {@code openTelemetry} is null
     */
    public static Builder builder(OpenTelemetry openTelemetry) {
        return new Builder(openTelemetry);
    }

    /**
     * Publishes what is read from the built {@code service} at each collection, without asking the
     * store: {@code quota.store.breaker.state} (1 for the breaker's state, {@code closed},
     * {@code open} or {@code half_open}, 0 for the others; nothing for a store without a breaker),
     * {@code quota.config.version}, and {@code quota.top.refusals} and {@code quota.top.spending}
     * by {@code quota.rank} (1 to 10: the counts of the customers this instance limits most, never
     * who they are), and {@code quota.leased.tokens.held} (tokens this instance holds in leased
     * batches now, {@link QuotaService#leasedTokens()}). Call once per service; {@link #close()} stops them.
     *
     * @throws NullPointerException if {@code service} is null
     */
    public void observe(QuotaService service) {
        observers.addAll(ServiceGauges.register(meter, Objects.requireNonNull(service, "service")));
    }

    @Override
    public void onDecision(Customer customer, @Nullable String limits, QuotaDecision decision, Duration elapsed) {
        Attributes result = Objects.requireNonNull(results.get(decision.outcome()), "one per outcome, made at start");
        duration.record(DecisionSpans.seconds(elapsed), result);
        decisions.add(1, series(customer.plan(), limits, decision));
        QuotaDecision.Fallback fallback = decision.fallback();
        if (fallback != null) {
            fallbacks.add(1, Objects.requireNonNull(fallbackKinds.get(fallback.kind()), "one per kind, made at start"));
        }
        if (decision.receipt().holdsLeases()) {
            leasesHeld.add(1);
        }
        spans.record(customer.plan(), limits, decision, elapsed);
    }

    @Override
    public void onRelease(QuotaDecision decision) {
        leasesHeld.add(-1);
    }

    @Override
    public void onFailedKey(QuotaDecision decision) {
        failedKeys.add(1, Objects.requireNonNull(results.get(decision.outcome()), "one per outcome, made at start"));
    }

    @Override
    public void onStoreFailure(RuntimeException e) {
        storeErrors.add(1, Attributes.of(Names.IN_DOUBT, e instanceof QuotaStoreException failure && failure.inDoubt()));
    }

    @Override
    public void onFallback(boolean active) {
        fallbackActive.set(active ? 1 : 0);
    }

    @Override
    public void onSettle(Settlement settlement) {
        settles.add(1, Objects.requireNonNull(settleOutcomes.get(settlement.outcome()), "one per outcome, made at start"));
    }

    @Override
    public void onLeasedTokens(TokenLeasing.Event event, String policy, long tokens) {
        LeaseSeries attributes = leaseSeries.get(policy);
        if (attributes == null) {
            String name = leaseSeries.size() >= MAX_SERIES ? OTHER : policy;
            attributes = leaseSeries.computeIfAbsent(name, LeaseSeries::new);
        }
        leasedTokens.add(tokens, Objects.requireNonNull(attributes.events.get(event), "one per event, made with the policy's"));
        if (event == TokenLeasing.Event.TAKEN) {
            leasedBatches.add(1, attributes.limit);
        }
    }

    @Override
    public void onReload(boolean applied, long version) {
        reloads.add(1, Attributes.of(Names.RELOAD_RESULT, applied ? "applied" : "rejected"));
    }

    /** Stops the instruments read at collection ({@code quota.fallback.active} and those of {@link #observe}). */
    @Override
    public void close() {
        for (AutoCloseable observer : observers) {
            try {
                observer.close();
            } catch (Exception e) {
                log.debug("closing an observed quota instrument failed", e);
            }
        }
        observers.clear();
    }

    /** The attribute set of a decision, made once per combination and kept, at most {@link #MAX_SERIES}. */
    private Attributes series(String plan, @Nullable String rule, QuotaDecision decision) {
        LimitStatus violated = decision.violated();
        QuotaDecision.Fallback fallback = decision.fallback();
        SeriesKey key = new SeriesKey(plan, rule, violated == null ? null : violated.policy(),
                violated == null ? null : violated.role(), decision.outcome(), fallback == null ? null : fallback.kind());
        Attributes attributes = series.get(key);
        if (attributes == null) {
            if (series.size() >= MAX_SERIES) {
                key = new SeriesKey(OTHER, rule == null ? null : OTHER, violated == null ? null : OTHER, key.kind(),
                        key.outcome(), key.fallback());
            }
            attributes = series.computeIfAbsent(key, SeriesKey::attributes);
        }
        return attributes;
    }

    /** The attribute sets of one policy's leased tokens: its limit, and per event. */
    private static final class LeaseSeries {
        final Attributes limit;
        final Map<TokenLeasing.Event, Attributes> events = new EnumMap<>(TokenLeasing.Event.class);

        LeaseSeries(String policy) {
            this.limit = Attributes.of(Names.LIMIT, policy);
            for (TokenLeasing.Event event : TokenLeasing.Event.values()) {
                events.put(event, Attributes.of(Names.LIMIT, policy, Names.LEASE_EVENT, Names.leaseEvent(event)));
            }
        }
    }

    private record SeriesKey(String plan, @Nullable String rule, @Nullable String limit, LimitStatus.@Nullable Role kind,
                             QuotaDecision.Outcome outcome, QuotaDecision.Fallback.@Nullable Kind fallback) {
        Attributes attributes() {
            AttributesBuilder builder = Attributes.builder().put(Names.RESULT, Names.result(outcome)).put(Names.PLAN, plan);
            if (rule != null) {
                builder.put(Names.RULE, rule);
            }
            if (limit != null) {
                builder.put(Names.LIMIT, limit);
            }
            if (kind != null) {
                builder.put(Names.LIMIT_KIND, Names.kind(kind));
            }
            if (fallback != null) {
                builder.put(Names.FALLBACK, Names.fallback(fallback));
            }
            return builder.build();
        }
    }

    /** Settings of an {@link OpenTelemetryQuotaListener}. */
    public static final class Builder {

        private final OpenTelemetry openTelemetry;
        private boolean decisionSpans;

        private Builder(OpenTelemetry openTelemetry) {
            this.openTelemetry = Objects.requireNonNull(openTelemetry, "openTelemetry");
        }

        /**
         * Whether each decision also gets a span of its own, {@code quota.decision}, a child of the
         * current span covering the decision's time, with the same attributes and event. Default
         * false: the decision goes on the current span only (the server's request span), and a
         * request outside any trace starts none.
         */
        public Builder decisionSpans(boolean decisionSpans) {
            this.decisionSpans = decisionSpans;
            return this;
        }

        /** The listener; its instruments are created now, in the given {@code OpenTelemetry}'s meter. */
        public OpenTelemetryQuotaListener build() {
            return new OpenTelemetryQuotaListener(this);
        }
    }
}
