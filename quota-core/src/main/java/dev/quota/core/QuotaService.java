package dev.quota.core;

import dev.quota.core.config.ApiKeys;
import dev.quota.core.internal.Hashes;
import dev.quota.core.internal.identity.CallerIdentifier;
import dev.quota.core.internal.identity.ConfigCustomers;
import dev.quota.core.internal.identity.Exemption;
import dev.quota.core.internal.identity.FailedKeyGuard;
import dev.quota.core.internal.inflight.LeaseReturns;
import dev.quota.core.internal.lease.LeasedShares;
import dev.quota.core.internal.report.Listeners;
import dev.quota.core.internal.report.RejectionLog;
import dev.quota.core.internal.top.TopCustomerCounts;
import dev.quota.core.spi.CustomerDirectory;
import dev.quota.core.spi.QuotaStore;
import dev.quota.core.store.InMemoryStore;
import java.net.InetAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides whether a caller may spend tokens now, against buckets in a shared store.
 *
 * <p>A transfer of 125.00 EUR by a customer on plan {@code free} (burst 20, refill 10/s, 2000 per
 * day) to an endpoint with rule {@code transfers} (10 per minute per customer, 500 per second for
 * everyone) is one decision over five buckets, taken in one store call: all of them, or, when the
 * transfers rule or the daily amount refuses, only the plan's request tokens (the request was
 * made), or nothing when the plan itself refuses. The decision names the limit that refused and
 * when to retry, and carries a {@link Receipt} so {@link #refund} can give back exactly what it took.
 *
 * <p>Operations: a disabled config ({@code enabled: false}) and allow-listed callers get
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

    private final QuotaStore store;
    private final QuotaStore fallback;
    private final Clock clock;
    private final BucketLayout layout;
    private final QuotaListener listener;
    /** The listeners the builder was given, told of each decision after {@link #top}; null when none. */
    private final @Nullable QuotaListener decisionListeners;
    private final TopCustomerCounts top;
    private final DecisionRunner runner;
    private final TokenLeasing tokenLeasing;
    /** Batches of hot buckets served without a store call ({@link TokenLeasing}); null when off. */
    private final @Nullable LeasedShares shares;
    private final FailedKeyGuard guard;
    private final RejectionLog rejectionLog;
    private final CustomerDirectory customers;
    private final CallerIdentifier identifier;
    private final QuotaAdmin admin;
    private final LeaseReturns returns;
    /** The executor of {@link #returns} when the service made it (and shuts it down); null when given. */
    private final @Nullable ExecutorService ownReturnExecutor;
    private final AtomicReference<QuotaConfig> config = new AtomicReference<>();

    /** How long a decision refused for a lease this instance is giving back waits for that return. */
    static final Duration AWAIT_RETURNS = Duration.ofSeconds(1);

    QuotaService(QuotaServiceBuilder builder) {
        this.store = Objects.requireNonNull(builder.store, "store must be set");
        this.clock = builder.clock;
        this.fallback = builder.fallback != null ? builder.fallback
                : InMemoryStore.builder().clock(clock).build();
        this.layout = new BucketLayout(builder.keyPrefix, clock);
        this.top = new TopCustomerCounts(clock);
        this.listener = new Listeners(builder.listeners);
        // a decision tells the rankings directly, and times itself only for listeners that read it
        this.decisionListeners = builder.listeners.isEmpty() ? null : new Listeners(builder.listeners);
        this.tokenLeasing = builder.tokenLeasing;
        this.shares = builder.tokenLeasing.enabled()
                ? new LeasedShares(store, clock, builder.tokenLeasing, this::config, listener, builder.leaseSweeper)
                : null;
        this.runner = new DecisionRunner(new RunnerWiring(store, fallback, clock, listener)
                .liveInstances(builder.liveInstances)
                .instanceRank(builder.instanceRank)
                .unavailableRetryAfter(builder.unavailableRetryAfter)
                .leaseHolder(builder.leaseHolder)
                .warn(builder.storeFailureWarnings)
                .shares(shares));
        this.guard = new FailedKeyGuard(new FailedKeyBuckets(layout, runner, store, clock), clock);
        this.rejectionLog = builder.rejectionLog != null ? builder.rejectionLog
                : RejectionLog.toSlf4j(clock, builder.rejectionLogRate);
        this.customers = builder.customers != null ? builder.customers : new ConfigCustomers(this::config);
        this.identifier = new CallerIdentifier(this::config, guard, customers, listener, rejectionLog);
        this.admin = new QuotaAdmin(this::config, layout, store, customers, runner, top);
        this.ownReturnExecutor = builder.leaseReturns == null ? leaseReturnThread() : null;
        Executor returnsOn = builder.leaseReturns != null ? builder.leaseReturns
                : Objects.requireNonNull(ownReturnExecutor, "made above");
        this.returns = new LeaseReturns(returnsOn, listener);
        QuotaConfig initial = Objects.requireNonNull(builder.config, "config must be set");
        config.set(initial.version() > 0 ? initial : initial.withVersion(clock.millis()));
    }

    /** A builder; {@code store} and {@code config} are required. */
    public static QuotaServiceBuilder builder() {
        return new QuotaServiceBuilder();
    }

    /** The active config. */
    public QuotaConfig config() {
        return Objects.requireNonNull(config.get(), "set in the constructor, never cleared");
    }

    /** Reads and resets for operators: standings, resets, customer lookup. */
    public QuotaAdmin admin() {
        return admin;
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
            QuotaConfig current = config();
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
                if (shares != null) {
                    shares.retireAll(); // batches of the old limits go back; new ones are taken under the new
                }
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
            listener.onReload(false, config().version());
            throw e;
        }
        return reload(next);
    }

    /**
     * Who a request comes from: its API key looked up by SHA-256 in the customer directory, its
     * principal, or, without a credential, the anonymous plan by client address (after
     * {@code identity.trustedProxies}) or by the end user a trusted gateway names. Key guessing is
     * counted here: an unknown key costs its client address a token of {@code identity.failedKeys}
     * in the shared store, and an address that ran out is {@link Caller.Kind#BLOCKED} until its
     * retry-after, for every key it has not used successfully in the last 24 hours (or every key,
     * with {@code identity.whileBlocked: no-keys}).
     *
     * @throws IllegalArgumentException if a request without a credential has no client address to
     *                                  be counted by (the HTTP layer answers 503 and logs it: never a
     *                                  bucket shared by every anonymous caller)
     * @throws RuntimeException         whatever the customer directory throws
     */
    public Caller identify(RequestFacts facts) {
        return identifier.identify(facts);
    }

    /**
     * Decides one request of {@code customer}, optionally on an endpoint rule. Shorthand for
     * {@code decide(Caller.of(customer), rule, null)}.
     *
     * @throws IllegalArgumentException if the customer's plan or the rule is not configured
     */
    public QuotaDecision decide(Customer customer, @Nullable String rule) {
        // Caller.of(customer) is not exempt and has neither an API key nor an address
        return decide(customer, false, null, null, rule, null);
    }

    /**
     * Decides one request: the rule's cost from every plan limit, one token from each of the rule's
     * per-customer and shared limits, and {@code amount} from its amount limits, in one store call.
     * {@link QuotaDecision.Outcome#BYPASSED} without a store call when the config is disabled or the
     * caller is exempt (allow-listed); {@link QuotaDecision.Outcome#EXCEEDS_LIMIT} when the amount
     * (or the cost) is more than its limit could ever hold.
     *
     * @param caller a counted caller ({@link Caller#counted()})
     * @param rule   the rule name, or null for the plan limits only
     * @param amount the amount the request moves, or null
     * @throws IllegalArgumentException if the caller is not counted, or the customer's plan, the rule
     *                                  or the amount limits are not configured
     */
    public QuotaDecision decide(Caller caller, @Nullable String rule, @Nullable Amount amount) {
        return decide(counted(caller), caller.exempt(), caller.keyHash(), caller.address(), rule, amount);
    }

    /** {@link #decide(Caller, String, Amount)} for a caller given by its parts. */
    private QuotaDecision decide(Customer customer, boolean exemptCaller, @Nullable String keyHash,
                                 @Nullable InetAddress address, @Nullable String rule, @Nullable Amount amount) {
        long start = System.nanoTime();
        QuotaConfig cfg = config();
        QuotaDecision decision;
        if (Exemption.exempt(cfg, customer, exemptCaller)) {
            decision = QuotaDecision.bypassed();
        } else {
            Plan plan = planOf(cfg, customer);
            Rule r = ruleOf(cfg, rule);
            AmountLimits limits = amount == null ? null : amountLimits(cfg, amount.limits());
            long returning = returns.mark();
            decision = decideOnce(cfg, customer, plan, r, amount, limits);
            if (awaitedReturns(decision, returning)) {
                decision = decideOnce(cfg, customer, plan, r, amount, limits);
            }
        }
        remember(cfg, keyHash, address, decision);
        report(customer, rule != null ? rule : amount != null ? amount.limits() : null, decision, start);
        return decision;
    }

    private QuotaDecision decideOnce(QuotaConfig cfg, Customer customer, Plan plan, @Nullable Rule r,
                                     @Nullable Amount amount, @Nullable AmountLimits limits) {
        // the whole limits on the shared store, without a planner made per decision
        QuotaDecision decision = runner.run(layout.request(cfg, customer, plan, r, amount, limits, LocalShare.WHOLE));
        if (DecisionRunner.fallsBackLocally(decision)) { // the store is down: this instance's share, here
            decision = runner.local(layout.request(cfg, customer, plan, r, amount, limits, runner.share()), decision);
        }
        return decision;
    }

    /**
     * Whether {@code decision} was refused by an in-flight limit while this instance still had
     * leases on their way back when it was made ({@code returning}, {@link LeaseReturns#mark()};
     * {@link #releaseLater}), and those returns then went out (waiting at
     * most {@link #AWAIT_RETURNS}): the caller decides once more. A client that sends its next request
     * the moment it has read a response is then not refused for the lease of that response. The
     * refused attempt stays charged as a refusal is (its plan's one token).
     */
    private boolean awaitedReturns(QuotaDecision decision, long returning) {
        LimitStatus violated = decision.violated();
        if (decision.outcome() != QuotaDecision.Outcome.REJECTED || violated == null
                || violated.role() != LimitStatus.Role.IN_FLIGHT || returning == LeaseReturns.NONE_PENDING) {
            return false;
        }
        try {
            return returns.await(returning, AWAIT_RETURNS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * An admitted request makes its API key known at its address: the key keeps working there while
     * the address is blocked for guessing. A refused one records nothing, so an exhausted key sent
     * from many addresses cannot push the keys of a NAT's own customers out of the table.
     */
    private void remember(QuotaConfig cfg, @Nullable String hash, @Nullable InetAddress address,
                          QuotaDecision decision) {
        if (hash != null && address != null && decision.allowed()) {
            guard.admitted(cfg.identity().group(address), hash);
        }
    }

    /**
     * The first step of a decision whose amount is in the request's body ({@link BodyDecision}):
     * the plan's tokens (the rule's cost), taken when the request arrives, before its body is read.
     * A refusal is final (a 429 without reading the body); an admitted request is decided with
     * {@link #decideAfterBody} once its body is read.
     *
     * @throws IllegalArgumentException as {@link #decide(Caller, String, Amount)}
     */
    public QuotaDecision decideBeforeBody(Caller caller, @Nullable String rule) {
        Customer customer = counted(caller);
        long start = System.nanoTime();
        QuotaConfig cfg = config();
        if (Exemption.exempt(cfg, caller)) {
            return QuotaDecision.bypassed(); // reported with the second step
        }
        Plan plan = planOf(cfg, customer);
        Rule r = ruleOf(cfg, rule);
        long returning = returns.mark();
        QuotaDecision decision = runner.run(share -> layout.plan(cfg, customer, plan, r, share));
        if (awaitedReturns(decision, returning)) {
            decision = runner.run(share -> layout.plan(cfg, customer, plan, r, share));
        }
        remember(cfg, caller.keyHash(), caller.address(), decision);
        if (!decision.allowed()) {
            report(customer, rule, decision, start); // there is no second step
        }
        return decision;
    }

    /**
     * The second step of a decision whose amount is in the request's body: the rule's limits and
     * {@code amount} (null when the body could not be read or carried no valid amount), in one
     * store call; the result covers both steps ({@link BodyDecision#merge}), its receipt refunds
     * exactly what the steps took that a refund gives back.
     *
     * @param beforeBody what {@link #decideBeforeBody} answered for this request; it must have been
     *                   allowed
     * @throws IllegalArgumentException as {@link #decide(Caller, String, Amount)}, or if
     *                                  {@code beforeBody} was not allowed
     */
    public QuotaDecision decideAfterBody(Caller caller, @Nullable String rule, @Nullable Amount amount,
                                         QuotaDecision beforeBody) {
        Customer customer = caller.customer();
        if (customer == null || !beforeBody.allowed()) {
            throw new IllegalArgumentException("a refused or uncounted request has no second step");
        }
        long start = System.nanoTime();
        QuotaConfig cfg = config();
        QuotaDecision decision;
        if (beforeBody.outcome() == QuotaDecision.Outcome.BYPASSED || Exemption.exempt(cfg, caller)) {
            decision = QuotaDecision.bypassed();
        } else {
            Plan plan = planOf(cfg, customer);
            Rule r = ruleOf(cfg, rule);
            AmountLimits limits = amount == null ? null : amountLimits(cfg, amount.limits());
            List<Draw> slots = layout.afterPlan(cfg, customer, plan, r, amount, limits, LocalShare.WHOLE);
            // nothing more to take (a rule without limits of its own, no amount): the first step was all
            decision = slots.isEmpty() ? beforeBody : BodyDecision.merge(beforeBody,
                    runner.run(share -> layout.afterPlan(cfg, customer, plan, r, amount, limits, share)));
        }
        report(customer, rule != null ? rule : amount != null ? amount.limits() : null, decision, start);
        return decision;
    }

    /**
     * Takes an amount on its own from the customer's amount limits, for a resource's own check once
     * its request was admitted; amount limits follow the global mode.
     * {@link QuotaDecision.Outcome#BYPASSED} when the config is disabled or the customer id is
     * allow-listed.
     *
     * @throws IllegalArgumentException if the amount limits are not configured
     */
    public QuotaDecision consumeAmount(Customer customer, Amount amount) {
        long start = System.nanoTime();
        QuotaConfig cfg = config();
        QuotaDecision decision;
        if (Exemption.exempt(cfg, Caller.of(customer))) {
            decision = QuotaDecision.bypassed();
        } else {
            AmountLimits limits = amountLimits(cfg, amount.limits());
            decision = runner.run(share -> layout.amount(cfg, customer, limits, amount, share));
        }
        report(customer, amount.limits(), decision, start);
        return decision;
    }

    /**
     * Gives back what {@code decision} took from rule, shared and amount limits, to the very
     * buckets and store it took it from, once (a second refund of the same decision does nothing):
     * a transfer the bank refused does not count against the customer's transfers or amounts. The
     * plan's request tokens are never given back: the request was made. A refunded decision is not
     * {@link #settle settled} afterwards. Best effort: a store failure is logged, not thrown.
     */
    public void refund(QuotaDecision decision) {
        runner.refund(decision.receipt());
    }

    /**
     * Changes what {@code decision} charged its plan (the rule's cost: the estimate) to
     * {@code actual}, once the actual cost is known: an export estimated at 10 that wrote 37 rows
     * takes 27 more tokens from the very plan buckets the decision charged, in the store that
     * charged them, in one store call; one that wrote 4 gives 6 back. The request already ran, so
     * the tokens are taken whatever the buckets hold: a bucket that lacks them goes below zero, and
     * the customer's next requests are refused (remaining 0, a Retry-After that counts the debt)
     * until the refill has paid it. The rule's per-customer and shared limits count requests and the
     * amount limits money: a settle leaves them as charged.
     *
     * <p>Once per decision: a second settle, a settle after {@link #refund}, or a settle of a decision
     * that charged no plan (refused, bypassed, unenforced) changes nothing and says so in its outcome.
     * A store failure is logged and reported ({@link Settlement.Outcome#FAILED}), not thrown. The
     * listeners are told every settle ({@link QuotaListener#onSettle}).
     *
     * @param actual the actual cost in plan tokens, {@code >= 0}
     * @throws IllegalArgumentException if {@code actual} is negative
     */
    public Settlement settle(QuotaDecision decision, long actual) {
        return settled(decision, runner.settle(decision.receipt(), actual));
    }

    /**
     * The running cost of {@code decision}'s response, charged while it streams in batches drawn from
     * the plan it charged, with the active config's {@link Streams} settings: see {@link RunningCost}
     * for the batch, the cut-off and the bound. Its {@link RunningCost#finish} settles the decision
     * (instead of {@link #settle}). A decision that charged no plan gets a running cost that covers
     * everything and settles nothing.
     */
    public RunningCost runningCost(QuotaDecision decision) {
        return new RunningCost(this, runner, decision, config().streams());
    }

    /** Tells the top-customers view and the listeners of a settle, and returns it. */
    Settlement settled(QuotaDecision decision, Settlement settlement) {
        Customer payer = decision.receipt().payer();
        if (payer != null) {
            top.settled(payer, settlement);
        }
        listener.onSettle(settlement);
        return settlement;
    }

    /**
     * Gives back the in-flight leases {@code decision} holds ({@link Concurrency}), to the store
     * that holds them, once (a second call does nothing): called when the request's response has
     * been written, or failed. One store call per lease set. Best effort: a store failure is logged
     * and counted as a store failure, not thrown, and the lease comes back at its lease timeout.
     * The listeners are told once ({@link QuotaListener#onRelease}).
     */
    public void release(QuotaDecision decision) {
        if (runner.release(decision.receipt())) {
            listener.onRelease(decision);
        }
    }

    /**
     * Gives back the in-flight leases {@code decision} holds, as {@link #release} does, without
     * waiting for the store: the return is queued and sent from another thread, together with the
     * returns queued while the previous store call was on its way, in one store call
     * ({@code QuotaStore.adjust}) per batch. What the HTTP layer calls once a response has ended, so
     * that giving a lease back never delays a response. Once per decision, whichever of this and
     * {@link #release} comes first. A decision refused by an in-flight limit while returns queued
     * here are on their way waits for them (at most one second) and is decided once more, so a
     * client's next request is not refused for the lease of the response it has just read. The
     * listeners are told once the store call returned ({@link QuotaListener#onRelease}). Where it
     * runs: {@link QuotaServiceBuilder#leaseReturns}.
     */
    public void releaseLater(QuotaDecision decision) {
        Receipt receipt = decision.receipt();
        if (receipt.release()) {
            returns.add(decision, receipt.leaseStore(), receipt.leases());
        }
    }

    /**
     * The customer an API key belongs to, or null when the key is unknown or malformed: a lookup
     * in the customer directory by the key's SHA-256, without counting anything.
     */
    public @Nullable Customer customerForApiKey(String apiKey) {
        return ApiKeys.wellFormed(apiKey) ? customers.byApiKeyHash(Hashes.sha256Hex(apiKey)) : null;
    }

    /**
     * Writes the summary of rejection-log lines suppressed so far, then closes the stores this
     * service owns (the fallback; the main store is closed too).
     */
    @Override
    public void close() {
        if (ownReturnExecutor != null) {
            ownReturnExecutor.shutdown();
        }
        returns.close(AWAIT_RETURNS); // the leases still queued, before the store closes
        rejectionLog.flush();
        if (shares != null) {
            shares.close(); // gives back what the batches hold, while the store is still open
        }
        store.close();
        fallback.close();
    }

    /**
     * What this instance did with leased shares of hot buckets ({@link TokenLeasing}) since it
     * started: batches taken, decisions served from them, tokens returned, expired and lost, and
     * tokens held now. All zero when leasing is off.
     */
    public TokenLeasing.Counts leasedTokens() {
        return shares == null ? new TokenLeasing.Counts(0, 0, 0, 0, 0, 0, 0) : shares.counts();
    }

    /**
     * The settings this service leases hot buckets by, as its builder was given them
     * ({@link QuotaServiceBuilder#tokenLeasing}; default {@link TokenLeasing#DEFAULT}). Which plans
     * and rules may be leased is the config's part ({@link QuotaConfig#leasing()}).
     */
    public TokenLeasing tokenLeasing() {
        return tokenLeasing;
    }

    /** Package-private: the leased shares, for tests that sweep them by their clock; null when off. */
    @Nullable LeasedShares shares() {
        return shares;
    }

    /** One daemon thread for lease returns, started on the first return and ended when idle. */
    private static ExecutorService leaseReturnThread() {
        ThreadPoolExecutor executor = new ThreadPoolExecutor(1, 1, 10, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                job -> {
                    Thread thread = new Thread(job, "quota-lease-returns");
                    thread.setDaemon(true);
                    return thread;
                });
        executor.allowCoreThreadTimeOut(true);
        return executor;
    }

    /** The customer a decision is made for. */
    private static Customer counted(Caller caller) {
        Customer customer = caller.customer();
        if (customer == null) {
            throw new IllegalArgumentException("a " + caller.kind() + " caller is not counted; answer it instead");
        }
        return customer;
    }

    static Plan planOf(QuotaConfig cfg, Customer customer) {
        Plan plan = cfg.plans().get(customer.plan()); // without an Optional and a lambda per decision
        if (plan == null) {
            throw new IllegalArgumentException(
                    "customer " + customer.id() + " is on unknown plan \"" + customer.plan() + "\"");
        }
        return plan;
    }

    private static @Nullable Rule ruleOf(QuotaConfig cfg, @Nullable String rule) {
        if (rule == null) {
            return null;
        }
        Rule found = cfg.rules().get(rule);
        if (found == null) {
            throw new IllegalArgumentException("unknown rule \"" + rule + "\"");
        }
        return found;
    }

    static AmountLimits amountLimits(QuotaConfig cfg, String amounts) {
        AmountLimits limits = cfg.amounts().get(amounts);
        if (limits == null) {
            throw new IllegalArgumentException("unknown amount limits \"" + amounts + "\"");
        }
        return limits;
    }

    /** Tells the listeners and the rejection log; {@code limits}: the rule's or amount limits' name, or null. */
    private void report(Customer customer, @Nullable String limits, QuotaDecision decision, long startNanos) {
        decision.receipt().paidBy(customer);
        top.decided(customer, decision.outcome(), decision.receipt().planTokens());
        if (decisionListeners != null) {
            decisionListeners.onDecision(customer, limits, decision, Duration.ofNanos(System.nanoTime() - startNanos));
        }
        if (decision.outcome() == QuotaDecision.Outcome.REJECTED
                || decision.outcome() == QuotaDecision.Outcome.SHADOW_REJECTED
                || decision.outcome() == QuotaDecision.Outcome.EXCEEDS_LIMIT) {
            rejectionLog.rejected(customer, limits, decision);
        }
    }
}
