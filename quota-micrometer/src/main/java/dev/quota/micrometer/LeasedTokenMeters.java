package dev.quota.micrometer;

import dev.quota.core.Limit;
import dev.quota.core.Mode;
import dev.quota.core.Plan;
import dev.quota.core.QuotaConfig;
import dev.quota.core.QuotaService;
import dev.quota.core.Refill;
import dev.quota.core.Rule;
import dev.quota.core.TokenLeasing;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The meters of leased shares ({@link TokenLeasing}) for {@link MicrometerQuotaListener}:
 * {@code quota.leased.tokens{policy,event}} and {@code quota.leased.batches{policy}} counters, one
 * set per limit's policy name (at most {@link MicrometerQuotaListener#MAX_SERIES} policies, later
 * ones under {@code policy=other}), and the {@code quota.leased.tokens.held} gauge of a service.
 */
final class LeasedTokenMeters {

    private static final String OTHER = "other";

    private final MeterRegistry registry;
    private final Map<String, PolicyMeters> policies = new ConcurrentHashMap<>();

    LeasedTokenMeters(MeterRegistry registry) {
        this.registry = registry;
    }

    /** One policy's counters: tokens per event, and batches taken. */
    private static final class PolicyMeters {
        final Map<TokenLeasing.Event, Counter> tokens = new EnumMap<>(TokenLeasing.Event.class);
        final Counter batches;

        PolicyMeters(MeterRegistry registry, String policy) {
            for (TokenLeasing.Event event : TokenLeasing.Event.values()) {
                tokens.put(event, Counter.builder("quota.leased.tokens")
                        .description("Leased tokens of hot buckets taken in batches, returned, expired"
                                + " (then returned) or lost, per limit")
                        .tag("policy", policy)
                        .tag("event", event.name().toLowerCase(Locale.ROOT))
                        .register(registry));
            }
            batches = Counter.builder("quota.leased.batches")
                    .description("Batches of hot buckets' tokens taken, per limit")
                    .tag("policy", policy)
                    .register(registry);
        }
    }

    /** Counts {@code tokens} of {@code policy} under {@code event}; a batch as well when taken. */
    void count(TokenLeasing.Event event, String policy, long tokens) {
        PolicyMeters meters = meters(policy);
        Objects.requireNonNull(meters.tokens.get(event), "a counter per event, made with the policy's")
                .increment((double) tokens);
        if (event == TokenLeasing.Event.TAKEN) {
            meters.batches.increment();
        }
    }

    /**
     * Registers the gauge of the tokens {@code service}'s batches hold now, and the counters at zero
     * for every bucket its config lets it lease.
     */
    void register(QuotaService service) {
        Gauge.builder("quota.leased.tokens.held", service, s -> s.leasedTokens().held())
                .description("Tokens this instance holds in leased batches of hot buckets now")
                .strongReference(true)
                .register(registry);
        if (!service.tokenLeasing().enabled()) {
            return;
        }
        QuotaConfig config = service.config();
        for (Plan plan : config.plans().values()) {
            if (config.leasing().leasesPlan(plan.name()) && config.modeOf(plan) == Mode.ENFORCE) {
                atZero(plan.name(), plan.limits());
            }
        }
        for (Rule rule : config.rules().values()) {
            if (config.leasing().leasesRule(rule.name()) && config.modeOf(rule) == Mode.ENFORCE) {
                atZero(rule.name(), rule.perCustomer());
                atZero(rule.name(), rule.shared());
            }
        }
    }

    /**
     * Registers the counters of a leasable bucket of {@code limits}: named, as the service names it,
     * after its first limit that is not a calendar window (those have buckets of their own, never leased).
     */
    private void atZero(String owner, List<Limit> limits) {
        for (Limit limit : limits) {
            if (!(limit.refill() instanceof Refill.Calendar)) {
                meters(owner + "-" + limit.name());
                return;
            }
        }
    }

    private PolicyMeters meters(String policy) {
        PolicyMeters meters = policies.get(policy);
        if (meters != null) {
            return meters;
        }
        String name = policies.size() >= MicrometerQuotaListener.MAX_SERIES ? OTHER : policy;
        return policies.computeIfAbsent(name, p -> new PolicyMeters(registry, p));
    }
}
