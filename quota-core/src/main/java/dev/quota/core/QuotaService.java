package dev.quota.core;

import dev.quota.core.config.ApiKeys;
import dev.quota.core.internal.BucketUse;
import dev.quota.core.internal.Keys;
import dev.quota.core.net.ClientAddresses;
import dev.quota.core.spi.QuotaStore;
import dev.quota.core.store.InMemoryStore;
import java.net.InetAddress;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
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
 * <p>Operations: a disabled config ({@code enabled: false}) and allow-listed customers get
 * {@link QuotaDecision.Outcome#BYPASSED} without a store call; limits in {@link Mode#SHADOW} report
 * {@link QuotaDecision.Outcome#SHADOW_REJECTED} instead of rejecting; every decision goes to the
 * {@link QuotaListener}s, and every rejection to the sampled rejection log ({@code dev.quota.rejections}).
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
    private final QuotaListener listener;
    private final BucketRunner runner;
    private final FailedKeyLimiter failedKeys;
    private final RejectionLog rejectionLog;
    private final AtomicReference<QuotaConfig> config = new AtomicReference<>();

    QuotaService(QuotaServiceBuilder builder) {
        this.store = Objects.requireNonNull(builder.store, "store must be set");
        this.clock = builder.clock;
        this.fallback = builder.fallback != null ? builder.fallback
                : InMemoryStore.builder().clock(clock).build();
        this.keys = new Keys(builder.keyPrefix);
        this.listener = new Listeners(builder.listeners);
        this.runner = new BucketRunner(store, fallback, clock, builder.liveInstances, builder.unavailableRetryAfter,
                listener);
        this.failedKeys = new FailedKeyLimiter(keys, runner, clock);
        this.rejectionLog = builder.rejectionLog != null ? builder.rejectionLog
                : RejectionLog.toSlf4j(clock, builder.rejectionLogRate);
        QuotaConfig initial = Objects.requireNonNull(builder.config, "config must be set");
        config.set(initial.version() > 0 ? initial : initial.withVersion(clock.millis()));
    }

    /** A builder; {@code store} and {@code config} are required. */
    public static QuotaServiceBuilder builder() {
        return new QuotaServiceBuilder();
    }

    /** The active config. */
    public QuotaConfig config() {
        return config.get();
    }

    /**
     * Makes {@code next} the active config. A config without a version (0) gets one above the
     * active version; an explicit version must be higher than the active one. The listeners are
     * told either way ({@link QuotaListener#onReload}).
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
                    listener.onReload(false, current.version());
                    throw new IllegalArgumentException("config version must increase: active is "
                            + current.version() + " but the new config has " + next.version());
                }
                versioned = next;
            } else {
                versioned = next.withVersion(Math.max(clock.millis(), current.version() + 1));
            }
            if (config.compareAndSet(current, versioned)) {
                log.info("quota config version {} active ({} plans, {} rules, {}, mode {})", versioned.version(),
                        versioned.plans().size(), versioned.rules().size(),
                        versioned.enabled() ? "enabled" : "DISABLED", versioned.mode());
                listener.onReload(true, versioned.version());
                return versioned;
            }
        }
    }

    /**
     * Loads a config with {@code loader} and makes it active, as {@link #reload(QuotaConfig)}; when
     * the loader throws (an invalid file), the listeners are told of a rejected reload and the
     * exception is rethrown. {@code ConfigReloader} reloads through here.
     *
     * @throws RuntimeException whatever {@code loader} throws, such as {@code InvalidConfigException}
     * @throws IllegalArgumentException if the loaded config has an explicit version that is not higher
     */
    public QuotaConfig reload(Supplier<QuotaConfig> loader) {
        QuotaConfig next;
        try {
            next = Objects.requireNonNull(loader.get(), "the config loader returned null");
        } catch (RuntimeException e) {
            listener.onReload(false, config.get().version());
            throw e;
        }
        return reload(next);
    }

    /**
     * The customer an API key belongs to, or null when the key is unknown. The key is compared by
     * its SHA-256, so the config never needs plain keys.
     */
    public @Nullable Customer customerForApiKey(String apiKey) {
        return config.get().customerForKeyHash(sha256Hex(apiKey));
    }

    /**
     * Whether the caller is on the config's allow-list ({@code allow:}) by customer id, API key or
     * client address; such a request should not be limited. {@link #decide} already bypasses
     * allow-listed customer ids by itself; the HTTP layer asks here for keys and addresses.
     *
     * @param customerId   the customer's id, or null before it is known
     * @param apiKeySha256 the SHA-256 hex of the request's API key ({@link #sha256Hex}), or null
     * @param address      the client address after trusted-proxy resolution
     *                     ({@link Identity#clientAddress}), or null
     */
    public boolean isAllowListed(@Nullable String customerId, @Nullable String apiKeySha256,
                                 @Nullable InetAddress address) {
        return config.get().allow().matches(customerId, apiKeySha256, address);
    }

    /**
     * Decides one request of {@code customer}, optionally on an endpoint rule: takes the rule's
     * cost from every plan limit and one token from each of the rule's limits, or nothing.
     * {@link QuotaDecision.Outcome#BYPASSED} without a store call when the config is disabled or
     * the customer id is allow-listed.
     *
     * @param rule the rule name, or null for the plan limits only
     * @throws IllegalArgumentException if the customer's plan or the rule is not configured
     */
    public QuotaDecision decide(Customer customer, @Nullable String rule) {
        long start = System.nanoTime();
        QuotaConfig cfg = config.get();
        QuotaDecision decision;
        if (bypassed(cfg, customer)) {
            decision = QuotaDecision.bypassed();
        } else {
            Plan plan = planOf(cfg, customer);
            Rule r = ruleOf(cfg, rule);
            decision = runner.run(divisor -> requestBuckets(cfg, customer, plan, r, divisor));
        }
        report(customer, rule, decision, start);
        return decision;
    }

    /** The buckets one request takes from: plan (the rule's cost), rule per customer, rule shared. */
    private List<BucketUse> requestBuckets(QuotaConfig cfg, Customer customer, Plan plan, @Nullable Rule r,
                                           int divisor) {
        Instant now = clock.instant();
        double multiplier = customer.multiplier() / divisor;
        List<BucketUse> uses = new ArrayList<>(4);
        long cost = r == null ? 1 : r.cost();
        BucketUse.plan(uses, keys.plan(customer.id()), plan.name(), plan.limits(), multiplier, cost, true,
                cfg.version(), now, plan.onStoreFailure(), cfg.modeOf(plan));
        if (r != null) {
            FailurePolicy policy = r.onStoreFailure() != null ? r.onStoreFailure() : plan.onStoreFailure();
            Mode mode = cfg.modeOf(r);
            BucketUse.plan(uses, keys.rule(r.name(), customer.id()), r.name(), r.perCustomer(), multiplier, 1,
                    true, cfg.version(), now, policy, mode);
            BucketUse.plan(uses, keys.shared(r.name()), r.name(), r.shared(), 1.0 / divisor, 1, true,
                    cfg.version(), now, policy, mode);
        }
        return uses;
    }

    /**
     * Gives back the tokens an allowed {@link #decide(Customer, String)} with the same arguments
     * took, for a request that a later check rejected (its transfer amount was over the daily
     * limit): a rejected request uses no quota. Best effort: a store failure is logged, not thrown.
     * Does nothing for a bypassed customer.
     *
     * @throws IllegalArgumentException if the customer's plan or the rule is not configured
     */
    public void refund(Customer customer, @Nullable String rule) {
        QuotaConfig cfg = config.get();
        if (bypassed(cfg, customer)) {
            return;
        }
        Plan plan = planOf(cfg, customer);
        Rule r = ruleOf(cfg, rule);
        runner.giveBack(requestBuckets(cfg, customer, plan, r, 1));
    }

    /**
     * Takes {@code amount} (for money: minor units) from the customer's amount limits of
     * {@code amounts} for {@code qualifier} (a currency code), or nothing. Amount limits follow the
     * global mode; {@link QuotaDecision.Outcome#BYPASSED} when the config is disabled or the
     * customer id is allow-listed.
     *
     * @throws IllegalArgumentException if {@code amounts} is unknown, the qualifier is not 1-32 of
     *                                  {@code [A-Za-z0-9_.-]}, or {@code amount < 1}
     */
    public QuotaDecision consumeAmount(Customer customer, String amounts, String qualifier, long amount) {
        long start = System.nanoTime();
        QuotaConfig cfg = config.get();
        AmountLimits limits = amountLimits(cfg, amounts, qualifier);
        if (amount < 1) {
            throw new IllegalArgumentException("amount must be >= 1 but was " + amount);
        }
        QuotaDecision decision = bypassed(cfg, customer) ? QuotaDecision.bypassed() : runner.run(divisor ->
                amountBuckets(cfg, customer, limits, qualifier, amount, customer.multiplier() / divisor));
        report(customer, amounts, decision, start);
        return decision;
    }

    /**
     * Gives back an amount taken by {@link #consumeAmount}, e.g. when the transfer failed
     * downstream. Best effort: a store failure is logged, not thrown.
     */
    public void refundAmount(Customer customer, String amounts, String qualifier, long amount) {
        QuotaConfig cfg = config.get();
        AmountLimits limits = cfg.amounts().get(amounts);
        if (limits == null || amount < 1 || bypassed(cfg, customer)) {
            return;
        }
        runner.giveBack(amountBuckets(cfg, customer, limits, qualifier, amount, customer.multiplier()));
    }

    /** The amount limits named {@code amounts}, after checking the name and the qualifier. */
    private static AmountLimits amountLimits(QuotaConfig cfg, String amounts, String qualifier) {
        AmountLimits limits = cfg.amounts().get(amounts);
        if (limits == null) {
            throw new IllegalArgumentException("unknown amount limits \"" + amounts + "\"");
        }
        if (!QUALIFIER.matcher(qualifier).matches()) {
            throw new IllegalArgumentException("qualifier must match [A-Za-z0-9_.-]{1,32} but was \"" + qualifier + "\"");
        }
        return limits;
    }

    private List<BucketUse> amountBuckets(QuotaConfig cfg, Customer customer, AmountLimits limits, String qualifier,
                                          long amount, double multiplier) {
        List<BucketUse> uses = new ArrayList<>(2);
        BucketUse.plan(uses, keys.amount(limits.name(), customer.id(), qualifier), limits.name(), limits.limits(),
                multiplier, amount, false, cfg.version(), clock.instant(), limits.onStoreFailure(), cfg.mode());
        return uses;
    }

    /**
     * Counts one failed API-key lookup (an unknown key) of {@code clientAddress}: the HTTP layer
     * answers 401 while the decision is allowed and 429 with {@code Retry-After} once it is
     * {@link QuotaDecision.Outcome#REJECTED}. The limit is {@code identity.failedKeys} (default 10
     * per minute, one more every 6 seconds), counted in the shared store across every instance;
     * IPv6 addresses are grouped by {@code identity.ipv6Prefix}. The policy name is
     * {@code identity-failed-keys}. Allowed-listed addresses and a disabled config get
     * {@link QuotaDecision.Outcome#BYPASSED}; in global shadow mode a guesser gets
     * {@link QuotaDecision.Outcome#SHADOW_REJECTED}. A rejection is remembered in this JVM for
     * {@link #peekFailedKeys}.
     *
     * @param clientAddress the client address after trusted-proxy resolution, as text
     *                      ({@code 203.0.113.7}, {@code 2001:db8::1}); any other text is counted as is
     */
    public QuotaDecision recordFailedKey(String clientAddress) {
        QuotaConfig cfg = config.get();
        QuotaDecision decision;
        String group = FailedKeyLimiter.group(cfg, clientAddress);
        InetAddress address = ClientAddresses.parse(clientAddress);
        if (!cfg.enabled() || (address != null && cfg.allow().matches(null, null, address))) {
            decision = QuotaDecision.bypassed();
        } else {
            decision = failedKeys.record(cfg, group);
        }
        listener.onFailedKey(decision);
        if (decision.outcome() == QuotaDecision.Outcome.REJECTED
                || decision.outcome() == QuotaDecision.Outcome.SHADOW_REJECTED) {
            rejectionLog.failedKey(group, decision);
        }
        return decision;
    }

    /**
     * Whether {@code clientAddress} is blocked for guessing keys, without counting anything and
     * without a store call: {@link QuotaDecision.Outcome#REJECTED} (answer 429, with the time left
     * as {@code Retry-After}) for an address that {@link #recordFailedKey} rejected on this instance
     * within its retry-after, else an {@link QuotaDecision.Outcome#ALLOWED} decision with no limits.
     * Ask before looking a key up, so a blocked address cannot test keys, valid ones included.
     * Another instance learns of the block on the address's next failed lookup there.
     */
    public QuotaDecision peekFailedKeys(String clientAddress) {
        QuotaConfig cfg = config.get();
        if (!cfg.enabled()) {
            return QuotaDecision.bypassed();
        }
        return failedKeys.peek(FailedKeyLimiter.group(cfg, clientAddress));
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
                cfg.version(), now, plan.onStoreFailure(), Mode.ENFORCE);
        for (Rule rule : cfg.rules().values().stream().sorted(Comparator.comparing(Rule::name)).toList()) {
            BucketUse.plan(uses, keys.rule(rule.name(), customer.id()), rule.name(), rule.perCustomer(),
                    customer.multiplier(), 1, true, cfg.version(), now, plan.onStoreFailure(), Mode.ENFORCE);
        }
        List<LimitStatus> out = new ArrayList<>();
        for (BucketUse use : uses) {
            use.statuses(BucketRunner.call(() -> store.peek(use.key(), use.spec())), now, out);
        }
        return List.copyOf(out);
    }

    /**
     * The customer's standing in the amount limits {@code amounts} for {@code qualifier} (a
     * currency), without taking anything: how much may still move today.
     *
     * @throws IllegalArgumentException if {@code amounts} is unknown or the qualifier is malformed
     * @throws QuotaStoreException      if the store cannot answer
     */
    public List<LimitStatus> amountStanding(Customer customer, String amounts, String qualifier) {
        QuotaConfig cfg = config.get();
        AmountLimits limits = amountLimits(cfg, amounts, qualifier);
        Instant now = clock.instant();
        List<LimitStatus> out = new ArrayList<>();
        for (BucketUse use : amountBuckets(cfg, customer, limits, qualifier, 1, customer.multiplier())) {
            use.statuses(BucketRunner.call(() -> store.peek(use.key(), use.spec())), now, out);
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
                plan.onStoreFailure(), Mode.ENFORCE);
        for (Rule rule : cfg.rules().values()) {
            BucketUse.plan(uses, keys.rule(rule.name(), customer.id()), rule.name(), rule.perCustomer(), 1, 1, true,
                    cfg.version(), now, plan.onStoreFailure(), Mode.ENFORCE);
        }
        for (BucketUse use : uses) {
            BucketRunner.call(() -> {
                store.reset(use.key());
                return null;
            });
        }
    }

    /** The store's description, e.g. {@code redis standalone redis://127.0.0.1:6379}. */
    public String describeStore() {
        return store.describe();
    }

    /**
     * Writes the summary of rejection-log lines suppressed so far, then closes the stores this
     * service owns (the fallback; the main store is closed too).
     */
    @Override
    public void close() {
        rejectionLog.flush();
        store.close();
        fallback.close();
    }

    /** The lower-case hex SHA-256 of an API key, as stored in the config ({@link ApiKeys#sha256Hex}). */
    public static String sha256Hex(String apiKey) {
        return ApiKeys.sha256Hex(apiKey);
    }

    private static boolean bypassed(QuotaConfig cfg, Customer customer) {
        return !cfg.enabled() || cfg.allow().customers().contains(customer.id());
    }

    private static Plan planOf(QuotaConfig cfg, Customer customer) {
        return cfg.plan(customer.plan()).orElseThrow(() -> new IllegalArgumentException(
                "customer " + customer.id() + " is on unknown plan \"" + customer.plan() + "\""));
    }

    private static @Nullable Rule ruleOf(QuotaConfig cfg, @Nullable String rule) {
        return rule == null ? null : cfg.rule(rule).orElseThrow(
                () -> new IllegalArgumentException("unknown rule \"" + rule + "\""));
    }

    private void report(Customer customer, @Nullable String rule, QuotaDecision decision, long startNanos) {
        listener.onDecision(customer, rule, decision, Duration.ofNanos(System.nanoTime() - startNanos));
        if (decision.outcome() == QuotaDecision.Outcome.REJECTED
                || decision.outcome() == QuotaDecision.Outcome.SHADOW_REJECTED) {
            rejectionLog.rejected(customer, rule, decision);
        }
    }
}
