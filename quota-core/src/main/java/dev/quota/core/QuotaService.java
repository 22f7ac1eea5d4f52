package dev.quota.core;

import dev.quota.core.config.ApiKeys;
import dev.quota.core.internal.BucketUse;
import dev.quota.core.internal.Keys;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.QuotaStore;
import dev.quota.core.store.InMemoryStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntSupplier;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides whether a caller may spend tokens now, against buckets in a shared store.
 *
 * <p>A request of a customer on plan {@code free} (burst 20, refill 10/s) to an endpoint with rule
 * {@code transfers} (10 per minute per customer) takes one token from the customer's plan bucket
 * and one from the customer's transfers bucket; if either is empty, the tokens already taken are
 * given back and the decision is a rejection naming the empty limit and when to retry.
 *
 * <p>Thread-safe. {@link #reload} swaps the config atomically; stored buckets take the new limits
 * on their next use and keep their usage (a customer who used 60 of 100 and moves to 200 has 140
 * left).
 */
public final class QuotaService implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(QuotaService.class);
    private static final Pattern QUALIFIER = Pattern.compile("[A-Za-z0-9_.-]{1,32}");

    private final QuotaStore store;
    private final QuotaStore fallback;
    private final Clock clock;
    private final Keys keys;
    private final IntSupplier liveInstances;
    private final Duration unavailableRetryAfter;
    private final AtomicReference<QuotaConfig> config = new AtomicReference<>();

    private QuotaService(Builder builder) {
        this.store = Objects.requireNonNull(builder.store, "store must be set");
        this.clock = builder.clock;
        this.fallback = builder.fallback != null ? builder.fallback : InMemoryStore.builder().clock(clock).build();
        this.keys = new Keys(builder.keyPrefix);
        this.liveInstances = builder.liveInstances;
        this.unavailableRetryAfter = builder.unavailableRetryAfter;
        QuotaConfig initial = Objects.requireNonNull(builder.config, "config must be set");
        config.set(initial.version() > 0 ? initial : initial.withVersion(clock.millis()));
    }

    /** A builder; {@code store} and {@code config} are required. */
    public static Builder builder() {
        return new Builder();
    }

    /** The active config. */
    public QuotaConfig config() {
        return config.get();
    }

    /**
     * Makes {@code next} the active config. A config without a version (0) gets one above the
     * active version; an explicit version must be higher than the active one.
     *
     * @return the config now active, with its version
     * @throws IllegalArgumentException if {@code next} has an explicit version that is not higher
     */
    public QuotaConfig reload(QuotaConfig next) {
        while (true) {
            QuotaConfig current = config.get();
            QuotaConfig versioned;
            if (next.version() > 0) {
                if (next.version() <= current.version()) {
                    throw new IllegalArgumentException("config version must increase: active is "
                            + current.version() + " but the new config has " + next.version());
                }
                versioned = next;
            } else {
                versioned = next.withVersion(Math.max(clock.millis(), current.version() + 1));
            }
            if (config.compareAndSet(current, versioned)) {
                log.info("quota config version {} active ({} plans, {} rules)", versioned.version(),
                        versioned.plans().size(), versioned.rules().size());
                return versioned;
            }
        }
    }

    /**
     * The customer an API key belongs to, or null when the key is unknown. The key is compared by
     * its SHA-256, so the config never needs plain keys.
     */
    public @Nullable Customer customerForApiKey(String apiKey) {
        return config.get().customerForKeyHash(sha256Hex(apiKey));
    }

    /**
     * Decides one request of {@code customer}, optionally on an endpoint rule: takes the rule's
     * cost from every plan limit and one token from each of the rule's limits, or nothing.
     *
     * @param rule the rule name, or null for the plan limits only
     * @throws IllegalArgumentException if the customer's plan or the rule is not configured
     */
    public QuotaDecision decide(Customer customer, @Nullable String rule) {
        QuotaConfig cfg = config.get();
        Plan plan = planOf(cfg, customer);
        Rule r = rule == null ? null : cfg.rule(rule).orElseThrow(
                () -> new IllegalArgumentException("unknown rule \"" + rule + "\""));
        return run(divisor -> requestBuckets(cfg, customer, plan, r, divisor));
    }

    /** The buckets one request takes from: plan (the rule's cost), rule per customer, rule shared. */
    private List<BucketUse> requestBuckets(QuotaConfig cfg, Customer customer, Plan plan, @Nullable Rule r,
                                           int divisor) {
        Instant now = clock.instant();
        double multiplier = customer.multiplier() / divisor;
        List<BucketUse> uses = new ArrayList<>(4);
        long cost = r == null ? 1 : r.cost();
        BucketUse.plan(uses, keys.plan(customer.id()), plan.name(), plan.limits(), multiplier, cost, true,
                cfg.version(), now, plan.onStoreFailure());
        if (r != null) {
            FailurePolicy policy = r.onStoreFailure() != null ? r.onStoreFailure() : plan.onStoreFailure();
            BucketUse.plan(uses, keys.rule(r.name(), customer.id()), r.name(), r.perCustomer(), multiplier, 1,
                    true, cfg.version(), now, policy);
            BucketUse.plan(uses, keys.shared(r.name()), r.name(), r.shared(), 1.0 / divisor, 1, true,
                    cfg.version(), now, policy);
        }
        return uses;
    }

    /**
     * Gives back the tokens an allowed {@link #decide(Customer, String)} with the same arguments
     * took, for a request that a later check rejected (its transfer amount was over the daily
     * limit): a rejected request uses no quota. Best effort: a store failure is logged, not thrown.
     *
     * @throws IllegalArgumentException if the customer's plan or the rule is not configured
     */
    public void refund(Customer customer, @Nullable String rule) {
        QuotaConfig cfg = config.get();
        Plan plan = planOf(cfg, customer);
        Rule r = rule == null ? null : cfg.rule(rule).orElseThrow(
                () -> new IllegalArgumentException("unknown rule \"" + rule + "\""));
        List<BucketUse> uses = requestBuckets(cfg, customer, plan, r, 1);
        refund(store, uses, uses.size());
    }

    /**
     * Takes {@code amount} (for money: minor units) from the customer's amount limits of
     * {@code amounts} for {@code qualifier} (a currency code), or nothing.
     *
     * @throws IllegalArgumentException if {@code amounts} is unknown, the qualifier is not 1-32 of
     *                                  {@code [A-Za-z0-9_.-]}, or amount < 1
     */
    public QuotaDecision consumeAmount(Customer customer, String amounts, String qualifier, long amount) {
        QuotaConfig cfg = config.get();
        AmountLimits limits = cfg.amounts().get(amounts);
        if (limits == null) {
            throw new IllegalArgumentException("unknown amount limits \"" + amounts + "\"");
        }
        if (!QUALIFIER.matcher(qualifier).matches()) {
            throw new IllegalArgumentException("qualifier must match [A-Za-z0-9_.-]{1,32} but was \"" + qualifier + "\"");
        }
        if (amount < 1) {
            throw new IllegalArgumentException("amount must be >= 1 but was " + amount);
        }
        return run(divisor -> {
            List<BucketUse> uses = new ArrayList<>(2);
            BucketUse.plan(uses, keys.amount(amounts, customer.id(), qualifier), amounts, limits.limits(),
                    customer.multiplier() / divisor, amount, false, cfg.version(), clock.instant(),
                    limits.onStoreFailure());
            return uses;
        });
    }

    /**
     * Gives back an amount taken by {@link #consumeAmount}, e.g. when the transfer failed
     * downstream. Best effort: a store failure is logged, not thrown.
     */
    public void refundAmount(Customer customer, String amounts, String qualifier, long amount) {
        QuotaConfig cfg = config.get();
        AmountLimits limits = cfg.amounts().get(amounts);
        if (limits == null || amount < 1) {
            return;
        }
        List<BucketUse> uses = new ArrayList<>(2);
        BucketUse.plan(uses, keys.amount(amounts, customer.id(), qualifier), amounts, limits.limits(),
                customer.multiplier(), amount, false, cfg.version(), clock.instant(), limits.onStoreFailure());
        refund(store, uses, uses.size());
    }

    /**
     * The customer's standing in its plan limits and in the per-customer limits of every rule,
     * without taking anything.
     *
     * @throws QuotaStoreException if the store cannot answer
     */
    public List<LimitStatus> standing(Customer customer) {
        QuotaConfig cfg = config.get();
        Plan plan = planOf(cfg, customer);
        Instant now = clock.instant();
        List<BucketUse> uses = new ArrayList<>();
        BucketUse.plan(uses, keys.plan(customer.id()), plan.name(), plan.limits(), customer.multiplier(), 1, true,
                cfg.version(), now, plan.onStoreFailure());
        for (Rule rule : cfg.rules().values().stream().sorted(java.util.Comparator.comparing(Rule::name)).toList()) {
            BucketUse.plan(uses, keys.rule(rule.name(), customer.id()), rule.name(), rule.perCustomer(),
                    customer.multiplier(), 1, true, cfg.version(), now, plan.onStoreFailure());
        }
        List<LimitStatus> out = new ArrayList<>();
        for (BucketUse use : uses) {
            use.statuses(wrap(() -> store.peek(use.key(), use.spec())), now, out);
        }
        return List.copyOf(out);
    }

    /**
     * Deletes the customer's plan and rule buckets (current calendar windows included): the next
     * request starts with full buckets.
     *
     * @throws QuotaStoreException if the store cannot answer
     */
    public void reset(Customer customer) {
        QuotaConfig cfg = config.get();
        Plan plan = planOf(cfg, customer);
        Instant now = clock.instant();
        List<BucketUse> uses = new ArrayList<>();
        BucketUse.plan(uses, keys.plan(customer.id()), plan.name(), plan.limits(), 1, 1, true, cfg.version(), now,
                plan.onStoreFailure());
        for (Rule rule : cfg.rules().values()) {
            BucketUse.plan(uses, keys.rule(rule.name(), customer.id()), rule.name(), rule.perCustomer(), 1, 1, true,
                    cfg.version(), now, plan.onStoreFailure());
        }
        for (BucketUse use : uses) {
            wrap(() -> {
                store.reset(use.key());
                return null;
            });
        }
    }

    /** The store's description, e.g. {@code redis standalone redis://127.0.0.1:6379}. */
    public String describeStore() {
        return store.describe();
    }

    /** Closes the stores this service owns (the fallback; the main store is closed too). */
    @Override
    public void close() {
        store.close();
        fallback.close();
    }

    /** The lower-case hex SHA-256 of an API key, as stored in the config ({@link ApiKeys#sha256Hex}). */
    public static String sha256Hex(String apiKey) {
        return ApiKeys.sha256Hex(apiKey);
    }

    private static Plan planOf(QuotaConfig cfg, Customer customer) {
        return cfg.plan(customer.plan()).orElseThrow(() -> new IllegalArgumentException(
                "customer " + customer.id() + " is on unknown plan \"" + customer.plan() + "\""));
    }

    /** Builds the bucket uses for a limit divisor (1 normally, the live instance count locally). */
    private interface Planner {
        List<BucketUse> uses(int divisor);
    }

    private QuotaDecision run(Planner planner) {
        List<BucketUse> uses = planner.uses(1);
        try {
            return execute(store, uses);
        } catch (QuotaStoreException e) {
            FailurePolicy policy = strictest(uses);
            log.warn("quota store unavailable ({}); applying failure policy {}", e.getMessage(), policy);
            switch (policy) {
                case OPEN:
                    return new QuotaDecision(QuotaDecision.Outcome.UNENFORCED, List.of(), null, Duration.ZERO);
                case CLOSED:
                    return new QuotaDecision(QuotaDecision.Outcome.UNAVAILABLE, List.of(), null, unavailableRetryAfter);
                default:
                    int instances = Math.max(1, liveInstances.getAsInt());
                    return execute(fallback, planner.uses(instances));
            }
        }
    }

    /** CLOSED beats LOCAL beats OPEN: the most careful policy among the buckets involved. */
    private static FailurePolicy strictest(List<BucketUse> uses) {
        FailurePolicy result = FailurePolicy.OPEN;
        for (BucketUse use : uses) {
            if (use.onFailure() == FailurePolicy.CLOSED) {
                return FailurePolicy.CLOSED;
            }
            if (use.onFailure() == FailurePolicy.LOCAL) {
                result = FailurePolicy.LOCAL;
            }
        }
        return result;
    }

    private QuotaDecision execute(QuotaStore target, List<BucketUse> uses) {
        Instant now = clock.instant();
        List<LimitStatus> statuses = new ArrayList<>(uses.size() * 2);
        for (int i = 0; i < uses.size(); i++) {
            BucketUse use = uses.get(i);
            ConsumeResult result;
            try {
                result = wrap(() -> target.tryConsume(use.key(), use.spec(), use.tokens()));
            } catch (QuotaStoreException e) {
                refund(target, uses, i);
                throw e;
            }
            int before = statuses.size();
            use.statuses(result, now, statuses);
            if (!result.consumed()) {
                refund(target, uses, i);
                LimitStatus violated = statuses.subList(before, statuses.size()).stream()
                        .filter(LimitStatus::exhausted).findFirst().orElse(statuses.get(before));
                Duration retryAfter = Duration.ofNanos(Math.max(1, result.nanosToWait()));
                if (use.window() != null) {
                    retryAfter = use.window().remaining(now);
                }
                return new QuotaDecision(QuotaDecision.Outcome.REJECTED, statuses, violated, retryAfter);
            }
        }
        return new QuotaDecision(QuotaDecision.Outcome.ALLOWED, statuses, null, Duration.ZERO);
    }

    /** Gives back the tokens taken from the first {@code count} buckets; failures are logged. */
    private static void refund(QuotaStore target, List<BucketUse> uses, int count) {
        for (int j = count - 1; j >= 0; j--) {
            BucketUse use = uses.get(j);
            try {
                target.addTokens(use.key(), use.spec(), use.tokens());
            } catch (RuntimeException e) {
                log.warn("could not give back {} tokens to {}: {}", use.tokens(), use.key(), e.toString());
            }
        }
    }

    private interface StoreCall<T> {
        T call();
    }

    /** Any runtime failure of a store becomes a QuotaStoreException, so the failure policy applies. */
    private static <T> T wrap(StoreCall<T> call) {
        try {
            return call.call();
        } catch (QuotaStoreException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new QuotaStoreException("store failed: " + e, e);
        }
    }

    /** Settings for a {@link QuotaService}. */
    public static final class Builder {
        private @Nullable QuotaStore store;
        private @Nullable QuotaStore fallback;
        private @Nullable QuotaConfig config;
        private Clock clock = Clock.systemUTC();
        private String keyPrefix = "quota";
        private IntSupplier liveInstances = () -> 1;
        private Duration unavailableRetryAfter = Duration.ofSeconds(1);

        private Builder() {
        }

        /** The shared store (required). The service closes it on {@link QuotaService#close()}. */
        public Builder store(QuotaStore store) {
            this.store = Objects.requireNonNull(store, "store");
            return this;
        }

        /** The store used under {@link FailurePolicy#LOCAL}; default: a new in-JVM store. */
        public Builder fallback(QuotaStore fallback) {
            this.fallback = Objects.requireNonNull(fallback, "fallback");
            return this;
        }

        /** The initial config (required). A version of 0 is replaced by the current time in millis. */
        public Builder config(QuotaConfig config) {
            this.config = Objects.requireNonNull(config, "config");
            return this;
        }

        /** The clock for calendar windows and config versions; default {@link Clock#systemUTC()}. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * The prefix of every bucket key; default {@code quota}.
         *
         * @throws IllegalArgumentException if not 1-32 of {@code [A-Za-z0-9_.-]}
         */
        public Builder keyPrefix(String keyPrefix) {
            new Keys(keyPrefix);
            this.keyPrefix = keyPrefix;
            return this;
        }

        /**
         * How many instances share the limits, for {@link FailurePolicy#LOCAL}: local buckets get
         * {@code 1/n} of each limit. Default: always 1.
         */
        public Builder liveInstances(IntSupplier liveInstances) {
            this.liveInstances = Objects.requireNonNull(liveInstances, "liveInstances");
            return this;
        }

        /**
         * The {@code Retry-After} of a decision rejected because the store is unavailable under
         * {@link FailurePolicy#CLOSED}; default 1 second.
         *
         * @throws IllegalArgumentException if negative or zero
         */
        public Builder unavailableRetryAfter(Duration retryAfter) {
            if (retryAfter.isNegative() || retryAfter.isZero()) {
                throw new IllegalArgumentException("unavailableRetryAfter must be positive but was " + retryAfter);
            }
            this.unavailableRetryAfter = retryAfter;
            return this;
        }

        /**
         * The service.
         *
         * @throws NullPointerException if store or config is not set
         */
        public QuotaService build() {
            return new QuotaService(this);
        }
    }
}
