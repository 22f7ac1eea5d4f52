package dev.quota.bench;

import dev.quota.core.Amount;
import dev.quota.core.AmountLimits;
import dev.quota.core.Caller;
import dev.quota.core.Customer;
import dev.quota.core.FailurePolicy;
import dev.quota.core.Limit;
import dev.quota.core.Plan;
import dev.quota.core.QuotaConfig;
import dev.quota.core.QuotaDecision;
import dev.quota.core.QuotaService;
import dev.quota.core.Refill;
import dev.quota.core.Rule;
import dev.quota.core.TokenLeasing;
import dev.quota.redis.RedisStore;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RedissonClient;

/**
 * This module: {@link QuotaService#decide} on plan {@code bench}, over a {@link RedisStore} on the
 * instance's client, exactly as an application calls it (keys hashed, statuses built, failure
 * policy CLOSED so a store failure shows as an error, not as an admission). Made with
 * {@link #transfer(RedissonClient, TransferLimits, String)}, each call is the demo's transfer
 * decision over five buckets instead ({@link #transfer(Customer)}).
 */
final class QuotaContender implements Contender {

    static final String PLAN = "bench";
    /** The transfer decision's rule and amount limits, named as in the demo. */
    static final String RULE = "transfers";
    static final String AMOUNTS = "transfer-amount";

    /**
     * Whether the service leases shares of hot buckets ({@link TokenLeasing}): on, as shipped,
     * unless the JVM runs with {@code -Dquota.bench.leases=off}.
     */
    static final boolean LEASES = !"off".equals(System.getProperty("quota.bench.leases", "on"));
    /**
     * The instances of the fixture being opened, which each service is told as its live instance
     * count (what {@code InstanceRegistry} would say): fixtures are opened one at a time, on the
     * bench's main thread.
     */
    static volatile int fleet = 1;

    private final QuotaService service;
    private final RedisStore store;
    private final String namespace;
    private final @Nullable TransferLimits transfer;
    /** Why the first decision that failed failed, or null while none has. */
    private volatile @Nullable String firstFailure;

    /**
     * @param rejectLocallyFor the store's {@code rejectLocallyFor}, or null for its default; zero asks
     *                         Redis for every request
     * @param reuseWrittenState the store's {@code reuseWrittenState}
     */
    QuotaContender(RedissonClient client, LimitSpec limit, String namespace, @Nullable Duration rejectLocallyFor,
                   boolean reuseWrittenState) {
        this(client, config(limit), null, namespace, rejectLocallyFor, reuseWrittenState);
    }

    private QuotaContender(RedissonClient client, QuotaConfig config, @Nullable TransferLimits transfer,
                           String namespace, @Nullable Duration rejectLocallyFor, boolean reuseWrittenState) {
        var builder = RedisStore.builder().client(client).timeout(Instance.TIMEOUT)
                .reuseWrittenState(reuseWrittenState);
        if (rejectLocallyFor != null) {
            builder.rejectLocallyFor(rejectLocallyFor);
        }
        this.store = builder.build();
        int instances = fleet;
        this.service = QuotaService.builder().store(store).config(config).liveInstances(() -> instances)
                .tokenLeasing(LEASES ? TokenLeasing.DEFAULT : TokenLeasing.OFF).build();
        this.namespace = namespace + ":q:";
        this.transfer = transfer;
    }

    /** This module deciding the demo's transfer over {@code limits}' five buckets, store as shipped. */
    static QuotaContender transfer(RedissonClient client, TransferLimits limits, String namespace) {
        return new QuotaContender(client, transferConfig(limits), limits, namespace, null, true);
    }

    static QuotaConfig config(LimitSpec limit) {
        Plan plan = Plan.of(PLAN, List.of(new Limit("burst", limit.capacity(),
                Refill.greedy(limit.capacity(), limit.period()))), FailurePolicy.CLOSED);
        return QuotaConfig.builder().plan(plan).build();
    }

    /**
     * The demo's transfer limits: plan {@code bench} (burst, hourly, daily), rule {@code transfers}
     * (per customer and shared), amount limits {@code transfer-amount}; every store failure CLOSED.
     */
    static QuotaConfig transferConfig(TransferLimits t) {
        Plan plan = Plan.of(PLAN, List.of(
                new Limit("burst", t.burst(), Refill.greedy(t.burstRefill(), TransferLimits.BURST_PERIOD)),
                new Limit("hourly", t.hourly(), Refill.interval(t.hourly(), TransferLimits.HOUR)),
                new Limit("daily", t.daily(), Refill.calendar(ChronoUnit.DAYS, TransferLimits.ZONE))),
                FailurePolicy.CLOSED);
        Rule rule = Rule.builder(RULE).perCustomer(List.of(new Limit("per-minute", t.perCustomer(),
                        Refill.greedy(t.perCustomer(), TransferLimits.PER_CUSTOMER_PERIOD))))
                .shared(List.of(new Limit("global", t.shared(),
                        Refill.greedy(t.shared(), TransferLimits.SHARED_PERIOD))))
                .onStoreFailure(FailurePolicy.CLOSED).build();
        AmountLimits amounts = AmountLimits.of(AMOUNTS, List.of(new Limit("daily", t.amountDaily(),
                Refill.calendar(ChronoUnit.DAYS, TransferLimits.ZONE))), FailurePolicy.CLOSED);
        return QuotaConfig.builder().plan(plan).rule(rule).amounts(amounts).build();
    }

    @Override
    public long conflicts() {
        return store.conflicts();
    }

    /**
     * Decides for customer {@code customer}, its {@link Customer} made for the call as an application
     * makes it from a request (the Lua floors build their key strings per call alike): a million
     * customers kept made would be about 90 MB of the bench's own in the heap the module is measured in.
     */
    @Override
    public Outcome acquire(int customer) {
        try {
            Customer who = Customer.of(namespace + customer, PLAN);
            QuotaDecision decision = transfer != null ? transfer(who) : service.decide(who, null);
            switch (decision.outcome()) {
                case ALLOWED:
                    return Outcome.ADMITTED;
                case REJECTED:
                    return Outcome.REJECTED;
                default:
                    QuotaDecision.Fallback fallback = decision.fallback();
                    failed(fallback != null ? fallback.reason() : decision.outcome().toString());
                    return Outcome.ERROR;
            }
        } catch (RuntimeException e) {
            failed(String.valueOf(e));
            return Outcome.ERROR;
        }
    }

    private void failed(String reason) {
        if (firstFailure == null) {
            firstFailure = reason;
        }
    }

    @Override
    public @Nullable String firstFailure() {
        return firstFailure;
    }

    /**
     * The transfer decision as the demo's transfer resource makes it: the plan, the rule (per
     * customer and shared) and the amount in one {@code decide}, all five buckets in one store call.
     */
    private QuotaDecision transfer(Customer customer) {
        TransferLimits limits = Objects.requireNonNull(transfer);
        return service.decide(Caller.of(customer), RULE, new Amount(AMOUNTS, TransferLimits.CURRENCY, limits.amount()));
    }

    @Override
    public String keyMarker(int customer) {
        return service.admin().bucketKeys(Customer.of(namespace + customer, PLAN)).get(0);
    }

    @Override
    public void close() {
        service.close(); // closes the store; the client belongs to the instance
    }
}
