package dev.quota.micrometer;

import dev.quota.core.Concurrency;
import dev.quota.core.Customer;
import dev.quota.core.LimitStatus;
import dev.quota.core.Plan;
import dev.quota.core.QuotaDecision;
import dev.quota.core.QuotaConfig;
import dev.quota.core.QuotaListener;
import dev.quota.core.QuotaService;
import dev.quota.core.QuotaStoreException;
import dev.quota.core.Rule;
import dev.quota.core.Settlement;
import dev.quota.core.TokenLeasing;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * Publishes what a {@code QuotaService} does as Micrometer meters. Register it with
 * {@code QuotaService.builder().listener(new MicrometerQuotaListener(registry))}.
 *
 * <table>
 *   <caption>Meters (Prometheus names in brackets)</caption>
 *   <tr><td>{@code quota.decisions} counter [{@code quota_decisions_total}]</td>
 *       <td>tags {@code plan}, {@code rule} (the rule or amount limits, {@code none}), {@code policy}
 *       (the violated limit, {@code none}), {@code outcome} ({@code allowed}, {@code rejected},
 *       {@code shadow_rejected}, {@code unenforced}, {@code unavailable}, {@code bypassed})</td></tr>
 *   <tr><td>{@code quota.decision.latency} timer [{@code quota_decision_latency_seconds_bucket},
 *       {@code _count}, {@code _sum}]</td>
 *       <td>time per decision, store round trips included; histogram buckets, so p99 across
 *       instances is {@code histogram_quantile(0.99, sum by (le) (rate(..._bucket[5m])))}; registries
 *       that publish client-side percentiles also get p50 and p99 (Prometheus does not, for a
 *       histogram)</td></tr>
 *   <tr><td>{@code quota.store.errors} counter [{@code quota_store_errors_total}]</td>
 *       <td>failed store calls; the failure policy decided what callers saw</td></tr>
 *   <tr><td>{@code quota.fallback.decisions} counter [{@code quota_fallback_decisions_total}]</td>
 *       <td>decisions the shared store did not make, registered at zero: tag {@code fallback}
 *       ({@code local}, {@code open}, {@code closed}: the failure policy during an established outage;
 *       {@code shed}: answered 503 because one call failed while the store serves others) and tag
 *       {@code reason} ({@code outage} or {@code call_failed}). Alert on any increase: these
 *       decisions were not counted in the shared store</td></tr>
 *   <tr><td>{@code quota.store.in.doubt} counter [{@code quota_store_in_doubt_total}]</td>
 *       <td>failed store calls whose write may have been applied (a Redis script that timed out):
 *       the decision was refused, and its tokens may stay taken</td></tr>
 *   <tr><td>{@code quota.fallback.active} gauge [{@code quota_fallback_active}]</td>
 *       <td>1 while the in-JVM fallback of the {@code local} failure policy is deciding, else 0</td></tr>
 *   <tr><td>{@code quota.config.reloads} counter [{@code quota_config_reloads_total}]</td>
 *       <td>tag {@code result}: {@code applied} or {@code rejected}</td></tr>
 *   <tr><td>{@code quota.config.version} gauge [{@code quota_config_version}]</td>
 *       <td>the active config version after the last reload; 0 until the first</td></tr>
 *   <tr><td>{@code quota.failed.keys} counter [{@code quota_failed_keys_total}]</td>
 *       <td>failed API-key lookups counted per client address; tag {@code outcome} ({@code allowed}
 *       = answered 401, {@code rejected} = 429 for guessing keys)</td></tr>
 *   <tr><td>{@code quota.settles} counter [{@code quota_settles_total}]</td>
 *       <td>costs settled after the fact, registered at zero; tag {@code outcome}: {@code charged}
 *       (more than the estimate, taken whatever the plan held: a debt where it lacked them),
 *       {@code given_back}, {@code exact}, {@code already_settled}, {@code refunded},
 *       {@code nothing_to_settle}, {@code failed} (the store failed: the estimate stands)</td></tr>
 *   <tr><td>{@code quota.leases.held} gauge [{@code quota_leases_held}]</td>
 *       <td>in-flight leases held by this instance's running requests, tag {@code policy}
 *       ({@code <plan>-in-flight}, {@code <rule>-in-flight}); registered at zero for every in-flight
 *       limit of the config by {@link #registerInFlight}. Summed over instances: the requests
 *       running under in-flight limits (a killed instance's leases, which the store still holds
 *       until their timeout, are not in it: the admin standing shows those)</td></tr>
 *   <tr><td>{@code quota.settle.tokens} counter [{@code quota_settle_tokens_total}]</td>
 *       <td>plan tokens a settle moved; tag {@code direction}: {@code charged} (taken after the fact,
 *       the tokens that can make a debt) or {@code given_back}</td></tr>
 *   <tr><td>{@code quota.leased.tokens} counter [{@code quota_leased_tokens_total}]</td>
 *       <td>tokens of leased shares of hot buckets ({@link TokenLeasing}), tag {@code policy} (the
 *       policy name of the bucket's first limit: {@code <plan>-<limit>}, {@code <rule>-<limit>}) and
 *       tag {@code event}: {@code taken} (in batches, with a decision), {@code returned} (unspent,
 *       given back to the store), {@code expired} (left in a batch at its deadline; counted under
 *       {@code returned} too once given back), {@code lost} (could not be given back: missing from
 *       the bucket until it refills). Registered at zero for every bucket the config leases by
 *       {@link #registerLeasing}, else at a limit's first event</td></tr>
 *   <tr><td>{@code quota.leased.batches} counter [{@code quota_leased_batches_total}]</td>
 *       <td>batches taken, tag {@code policy}</td></tr>
 *   <tr><td>{@code quota.leased.tokens.held} gauge [{@code quota_leased_tokens_held}]</td>
 *       <td>tokens this instance holds in batches now (not yet served nor returned); registered by
 *       {@link #registerLeasing}. Summed over instances: what the fleet holds, at most
 *       {@code fleetFraction} of each leased limit's capacity (docs/operations.md has the bound)</td></tr>
 * </table>
 *
 * <p>Tag values come from config names (plans, rules, limits), never from customer ids, keys or
 * addresses, so the number of series is bounded by the config. As a guard against plans that are
 * not in the config (a bypassed caller may name any plan), at most {@value #MAX_SERIES} tag
 * combinations are kept; further ones are counted under {@code plan=other, rule=other, policy=other}.
 */
public final class MicrometerQuotaListener implements QuotaListener {

    /** The most distinct {@code quota.decisions} tag combinations: 1000. */
    public static final int MAX_SERIES = 1_000;

    private static final String NONE = "none";
    private static final String OTHER = "other";

    private final MeterRegistry registry;
    private final Map<SeriesKey, Counter> decisions = new ConcurrentHashMap<>();
    private final Timer latency;
    private final Counter storeErrors;
    private final Counter inDoubt;
    private final AtomicInteger fallbackActive = new AtomicInteger();
    private final AtomicLong configVersion = new AtomicLong();
    private final Counter reloadsApplied;
    private final Counter reloadsRejected;
    private final Map<QuotaDecision.Outcome, Counter> failedKeys = new EnumMap<>(QuotaDecision.Outcome.class);
    private final Map<QuotaDecision.Fallback.Kind, Counter> fallbacks =
            new EnumMap<>(QuotaDecision.Fallback.Kind.class);
    private final Map<Settlement.Outcome, Counter> settles = new EnumMap<>(Settlement.Outcome.class);
    private final Counter tokensCharged;
    private final Counter tokensGivenBack;
    /** Leases held by this instance's running requests, per in-flight policy; at most {@link #MAX_SERIES}. */
    private final Map<String, AtomicLong> leasesHeld = new ConcurrentHashMap<>();
    private final LeasedTokenMeters leased;

    /** Registers the meters in {@code registry} (those without variable tags at once, at zero). */
    public MicrometerQuotaListener(MeterRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.leased = new LeasedTokenMeters(registry);
        this.latency = Timer.builder("quota.decision.latency")
                .description("Time to decide one request or amount, store round trips included")
                .publishPercentiles(0.5, 0.99)
                .publishPercentileHistogram()
                .register(registry);
        this.storeErrors = Counter.builder("quota.store.errors")
                .description("Store calls that failed; the failure policy decided what callers saw")
                .register(registry);
        this.inDoubt = Counter.builder("quota.store.in.doubt")
                .description("Failed store calls whose write may have been applied; their decisions were refused")
                .register(registry);
        Gauge.builder("quota.fallback.active", fallbackActive, AtomicInteger::get)
                .description("1 while the in-JVM fallback (failure policy local) decides, else 0")
                .register(registry);
        Gauge.builder("quota.config.version", configVersion, AtomicLong::get)
                .description("The active config version after the last reload")
                .register(registry);
        this.reloadsApplied = reloads("applied");
        this.reloadsRejected = reloads("rejected");
        for (QuotaDecision.Outcome outcome : QuotaDecision.Outcome.values()) {
            failedKeys.put(outcome, Counter.builder("quota.failed.keys")
                    .description("Failed API-key lookups counted per client address")
                    .tag("outcome", tagValue(outcome))
                    .register(registry));
        }
        for (Settlement.Outcome outcome : Settlement.Outcome.values()) {
            settles.put(outcome, Counter.builder("quota.settles")
                    .description("Costs settled after the fact, by what the settle did")
                    .tag("outcome", outcome.name().toLowerCase(Locale.ROOT))
                    .register(registry));
        }
        this.tokensCharged = settleTokens("charged");
        this.tokensGivenBack = settleTokens("given_back");
        for (QuotaDecision.Fallback.Kind kind : QuotaDecision.Fallback.Kind.values()) {
            fallbacks.put(kind, Counter.builder("quota.fallback.decisions")
                    .description("Decisions the shared store did not make, by who answered instead and why")
                    .tag("fallback", kind.name().toLowerCase(Locale.ROOT))
                    .tag("reason", kind == QuotaDecision.Fallback.Kind.SHED ? "call_failed" : "outage")
                    .register(registry));
        }
    }

    @Override
    public void onSettle(Settlement settlement) {
        Objects.requireNonNull(settles.get(settlement.outcome()), "a counter per outcome, made at start").increment();
        if (settlement.change() > 0) {
            tokensCharged.increment((double) settlement.change());
        } else if (settlement.change() < 0) {
            tokensGivenBack.increment(-(double) settlement.change());
        }
    }

    @Override
    public void onDecision(Customer customer, @Nullable String limits, QuotaDecision decision, Duration elapsed) {
        latency.record(elapsed);
        QuotaDecision.Fallback fallback = decision.fallback();
        if (fallback != null) {
            Objects.requireNonNull(fallbacks.get(fallback.kind()), "a counter per kind, made at start").increment();
        }
        var key = new SeriesKey(customer.plan(), limits == null ? NONE : limits,
                decision.violated() == null ? NONE : decision.violated().policy(), decision.outcome());
        Counter counter = decisions.get(key);
        if (counter == null) {
            if (decisions.size() >= MAX_SERIES) {
                key = new SeriesKey(OTHER, OTHER, OTHER, decision.outcome());
            }
            counter = decisions.computeIfAbsent(key, this::decisionCounter);
        }
        counter.increment();
        if (decision.receipt().holdsLeases()) {
            leasesTaken(decision, 1);
        }
    }

    /**
     * Registers {@code quota.leases.held} at zero for every in-flight limit of {@code config} (the
     * plan's and the rule's {@code concurrency}), so that a dashboard shows each from the start.
     * Call it once the service is built, and again with a reloaded config to add new limits; a
     * limit first seen in a decision is registered then anyway.
     *
     * @throws NullPointerException if {@code config} is null
     */
    public void registerInFlight(QuotaConfig config) {
        for (Plan plan : config.plans().values()) {
            if (plan.concurrency() != null) {
                leases(plan.name() + "-" + Concurrency.NAME);
            }
        }
        for (Rule rule : config.rules().values()) {
            if (rule.concurrency() != null) {
                leases(rule.name() + "-" + Concurrency.NAME);
            }
        }
    }

    /**
     * Moves {@code quota.leases.held} of each in-flight limit of the decision by {@code change}: +1
     * when it took its leases, -1 when it gave them back; the same statuses both times, so the
     * gauge never drifts.
     */
    private void leasesTaken(QuotaDecision decision, long change) {
        for (LimitStatus status : decision.limits()) {
            if (status.role() == LimitStatus.Role.IN_FLIGHT) {
                AtomicLong held = leases(status.policy());
                if (held != null) {
                    held.addAndGet(change);
                }
            }
        }
    }

    @Override
    public void onRelease(QuotaDecision decision) {
        leasesTaken(decision, -1);
    }

    /** The gauge of one in-flight policy, registered on first use; null past {@link #MAX_SERIES} policies. */
    private @Nullable AtomicLong leases(String policy) {
        AtomicLong held = leasesHeld.get(policy);
        if (held != null || leasesHeld.size() >= MAX_SERIES) {
            return held;
        }
        return leasesHeld.computeIfAbsent(policy, name -> {
            AtomicLong gauge = new AtomicLong();
            Gauge.builder("quota.leases.held", gauge, AtomicLong::get)
                    .description("In-flight leases held by this instance's running requests")
                    .tag("policy", name)
                    .register(registry);
            return gauge;
        });
    }

    /**
     * Registers {@code quota.leased.tokens.held}, read from {@code service} at each scrape, and
     * {@code quota.leased.tokens} and {@code quota.leased.batches} at zero for every bucket its
     * config leases (a plan's, a rule's, a rule's shared one, in enforce mode, not marked
     * {@code leasing: off}; none when the service's {@link QuotaService#tokenLeasing()} is off).
     * Call it once the service is built; with a reloaded config, again, to add new limits (the
     * gauge is registered once); a limit first seen in an event is registered then anyway.
     *
     * @throws NullPointerException if {@code service} is null
     */
    public void registerLeasing(QuotaService service) {
        leased.register(Objects.requireNonNull(service, "service"));
    }

    @Override
    public void onLeasedTokens(TokenLeasing.Event event, String policy, long tokens) {
        leased.count(event, policy, tokens);
    }

    @Override
    public void onFailedKey(QuotaDecision decision) {
        Objects.requireNonNull(failedKeys.get(decision.outcome()), "a counter per outcome, made at start").increment();
    }

    @Override
    public void onStoreFailure(RuntimeException e) {
        storeErrors.increment();
        if (e instanceof QuotaStoreException failure && failure.inDoubt()) {
            inDoubt.increment();
        }
    }

    @Override
    public void onFallback(boolean active) {
        fallbackActive.set(active ? 1 : 0);
    }

    @Override
    public void onReload(boolean applied, long version) {
        (applied ? reloadsApplied : reloadsRejected).increment();
        configVersion.set(version);
    }

    private Counter decisionCounter(SeriesKey key) {
        return Counter.builder("quota.decisions")
                .description("Quota decisions by plan, rule, violated policy and outcome")
                .tag("plan", key.plan())
                .tag("rule", key.rule())
                .tag("policy", key.policy())
                .tag("outcome", tagValue(key.outcome()))
                .register(registry);
    }

    private Counter settleTokens(String direction) {
        return Counter.builder("quota.settle.tokens")
                .description("Plan tokens settles took after the fact (charged) or gave back")
                .tag("direction", direction)
                .register(registry);
    }

    private Counter reloads(String result) {
        return Counter.builder("quota.config.reloads")
                .description("Config reload attempts: applied, or rejected with the previous config kept")
                .tag("result", result)
                .register(registry);
    }

    private static String tagValue(QuotaDecision.Outcome outcome) {
        return outcome.name().toLowerCase(Locale.ROOT);
    }

    private record SeriesKey(String plan, String rule, String policy, QuotaDecision.Outcome outcome) {
    }
}
