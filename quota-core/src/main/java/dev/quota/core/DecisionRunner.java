package dev.quota.core;

import dev.quota.core.internal.ListsOf;
import dev.quota.core.internal.LogThrottle;
import dev.quota.core.internal.lease.LeasedShares;
import dev.quota.core.spi.Adjustment;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.LeaseHolder;
import dev.quota.core.spi.QuotaStore;
import dev.quota.core.spi.StoreFailures;
import dev.quota.core.spi.Take;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes the tokens of one decision from its buckets in one store call, applies the failure policy
 * during an established outage (a call that merely failed is refused with 503, see
 * {@link QuotaStoreException}), and writes the receipt.
 *
 * <p>A decision's buckets are consumed together, in one store call, charged as
 * {@link DecisionCharge} says: all of them; or, when a rule, shared or amount limit refuses, one
 * token of each plan bucket (the request was made), or none (the plan itself refused). Limits in
 * {@link Mode#SHADOW} never refuse: when only they lack tokens, the store takes the enforced
 * buckets alone, and the decision is a shadow rejection.
 */
final class DecisionRunner {

    private static final Logger log = LoggerFactory.getLogger(QuotaService.class);

    private final QuotaStore store;
    private final QuotaStore fallback;
    private final Clock clock;
    private final IntSupplier liveInstances;
    /** This instance's place among the live instances, for the remainder of a divided limit; -1 unknown. */
    private final IntSupplier instanceRank;
    /** Who takes this instance's leases on the shared store, and who is known dead. */
    private final Supplier<LeaseHolder> leaseHolder;
    private final Duration unavailableRetryAfter;
    private final QuotaListener listener;
    /** Decisions made instead of the store, by who made them. */
    private final Map<QuotaDecision.Fallback.Kind, LongAdder> fallbacks = new EnumMap<>(QuotaDecision.Fallback.Kind.class);
    /** Whether the last decision under {@link FailurePolicy#LOCAL} went to the fallback. */
    private final AtomicBoolean fallbackActive = new AtomicBoolean();
    /** "Store unavailable" warnings: one a second, each with the count of those left out before it. */
    private final LogThrottle failureWarnings;
    private final Consumer<String> warn;
    /** The last instance count {@link #liveInstances} answered: used while it throws. */
    private volatile int lastInstances = 1;
    /** Whether the instance count is failing now (logged once per spell). */
    private final AtomicBoolean instancesFailing = new AtomicBoolean();
    /** The batches of hot buckets this instance serves from, on {@link #store} only; null: leasing is off. */
    private final @Nullable LeasedShares shares;

    /** A runner made with {@code wiring}'s parts; it is not read again. */
    DecisionRunner(RunnerWiring wiring) {
        this.store = wiring.store;
        this.fallback = wiring.fallback;
        this.clock = wiring.clock;
        this.listener = wiring.listener;
        this.liveInstances = Objects.requireNonNull(wiring.liveInstances, "liveInstances must be set");
        this.instanceRank = Objects.requireNonNull(wiring.instanceRank, "instanceRank must be set");
        this.unavailableRetryAfter = Objects.requireNonNull(wiring.unavailableRetryAfter,
                "unavailableRetryAfter must be set");
        this.leaseHolder = wiring.leaseHolder;
        Consumer<String> warnings = wiring.warn;
        this.warn = warnings != null ? warnings : log::warn;
        this.shares = wiring.shares;
        this.failureWarnings = new LogThrottle(clock, 1, 1, Duration.ZERO);
        for (QuotaDecision.Fallback.Kind kind : QuotaDecision.Fallback.Kind.values()) {
            fallbacks.put(kind, new LongAdder());
        }
    }

    /**
     * Decides with the buckets {@code planner} lays out for a share of the limits
     * ({@link LocalShare#WHOLE} on the shared store, this instance's share on the in-JVM fallback).
     */
    QuotaDecision run(Function<LocalShare, List<Draw>> planner) {
        QuotaDecision decision = run(planner.apply(LocalShare.WHOLE));
        return fallsBackLocally(decision) ? local(planner.apply(share()), decision) : decision;
    }

    /**
     * Decides with {@code slots}, the buckets of the whole limits, on the shared store: what
     * {@link #run(Function)} does while the store answers, without a planner made per decision.
     * When the store is down and the failure policy is {@link FailurePolicy#LOCAL}, the answer is
     * the refusal {@code closed} would give (503), named as the local fallback's
     * ({@link #fallsBackLocally}): the caller lays the buckets out again for {@link #share()} and
     * decides them with {@link #local(List, QuotaDecision)}. A caller that does not is never
     * wrong, only stricter: the request is refused with 503.
     */
    QuotaDecision run(List<Draw> slots) {
        QuotaDecision decision = decide(slots);
        return fallsBackLocally(decision) ? decision : counted(decision); // counted once made, by local()
    }

    /**
     * Decides with the buckets {@code planner} lays out, for a count that must hold in every phase
     * of a store failure (the failed-key guard): on the shared store while it answers, otherwise in
     * this JVM on this instance's {@link #share()}, whenever the store's call failed: a timeout, a
     * slow call, a breaker that is open or half-open, not only an established outage. A bucket of
     * which this instance holds no share refuses (capacity 10 over 16 instances: ranks 10 to 15
     * refuse every request until the store answers), so the instances together admit at most the
     * limit while the store cannot be read. A call that timed out may have been counted by the store
     * as well: counted twice, never not at all.
     */
    QuotaDecision runCountedLocally(Function<LocalShare, List<Draw>> planner) {
        QuotaDecision decision = decide(planner.apply(LocalShare.WHOLE));
        QuotaDecision.Fallback fallenBack = decision.fallback();
        if (fallsBackLocally(decision)) {
            return strictLocal(planner.apply(share()), Objects.requireNonNull(fallenBack, "a fallback pending"));
        }
        if (fallenBack != null && fallenBack.kind() != QuotaDecision.Fallback.Kind.LOCAL) {
            // refused for the store's failure (shed, or a policy other than local): counted here instead
            return strictLocal(planner.apply(share()), new QuotaDecision.Fallback(QuotaDecision.Fallback.Kind.LOCAL,
                    fallenBack.reason()));
        }
        return counted(decision);
    }

    /** {@link #runCountedLocally} in this JVM: a bucket this instance holds no share of refuses. */
    private QuotaDecision strictLocal(List<Draw> slots, QuotaDecision.Fallback fallenBack) {
        for (Draw slot : slots) {
            if (slot.noShare() && slot.mode() == Mode.ENFORCE) {
                Limit limit = slot.declared().get(0);
                // the wait for one token of the whole limit: the next guess is refused as soon
                Duration retry = Draw.refillTime(limit, 1);
                LimitStatus refused = LimitStatus.of(slot.policies().get(0), limit, slot.role(), 0, retry, retry);
                return counted(QuotaDecision.builder(QuotaDecision.Outcome.REJECTED).limits(List.of(refused))
                        .violated(refused).retryAfter(retry).fallback(fallenBack).build());
            }
        }
        return counted(execute(fallback, slots).decidedBy(fallenBack));
    }

    /**
     * Whether {@code decision}, an answer of {@link #run(List)}, says that the local fallback is to
     * make the decision: the store is down and the failure policy is {@link FailurePolicy#LOCAL}.
     */
    static boolean fallsBackLocally(QuotaDecision decision) {
        QuotaDecision.Fallback fallback = decision.fallback();
        return fallback != null && fallback.kind() == QuotaDecision.Fallback.Kind.LOCAL
                && decision.outcome() == QuotaDecision.Outcome.UNAVAILABLE && decision.limits().isEmpty();
    }

    /**
     * The decision of {@code slots}, laid out for {@link #share()}, in this JVM, after {@code pending}
     * ({@link #fallsBackLocally}) said the store is down.
     */
    QuotaDecision local(List<Draw> slots, QuotaDecision pending) {
        QuotaDecision.Fallback fallenBack = Objects.requireNonNull(pending.fallback(), "a fallback pending");
        return counted(local(slots, fallenBack));
    }

    /** Counts {@code decision} among the fallback decisions when the store did not make it. */
    private QuotaDecision counted(QuotaDecision decision) {
        QuotaDecision.Fallback fallenBack = decision.fallback();
        if (fallenBack != null) {
            Objects.requireNonNull(fallbacks.get(fallenBack.kind()), "every kind has a counter").increment();
        }
        return decision;
    }

    /** The decisions made instead of the store since start, by who made them. */
    Map<QuotaDecision.Fallback.Kind, Long> fallbackDecisions() {
        Map<QuotaDecision.Fallback.Kind, Long> counts = new EnumMap<>(QuotaDecision.Fallback.Kind.class);
        fallbacks.forEach((kind, count) -> counts.put(kind, count.sum()));
        return counts;
    }

    private QuotaDecision decide(List<Draw> slots) {
        QuotaDecision decision;
        try {
            decision = execute(store, slots);
        } catch (QuotaStoreException e) {
            listener.onStoreFailure(e);
            String reason = String.valueOf(e.getMessage());
            if (e.outage() && shares != null) {
                shares.retireAll(); // not served beside the failure policy: given back once the store answers
            }
            if (!e.outage()) {
                // the store may be serving every other call: admitting this one from a local bucket
                // would count it beside the store, so it is refused, and the client retries
                warnThrottled(e, "refusing it with 503 (the store is not known to be down)");
                return QuotaDecision.builder(QuotaDecision.Outcome.UNAVAILABLE).retryAfter(unavailableRetryAfter)
                        .fallback(new QuotaDecision.Fallback(QuotaDecision.Fallback.Kind.SHED, reason)).build();
            }
            FailurePolicy policy = strictest(slots);
            warnThrottled(e, "applying failure policy " + policy);
            QuotaDecision.Fallback fallenBack = new QuotaDecision.Fallback(QuotaDecision.Fallback.Kind.of(policy),
                    reason);
            return switch (policy) {
                case OPEN -> QuotaDecision.builder(QuotaDecision.Outcome.UNENFORCED).fallback(fallenBack).build();
                case CLOSED -> QuotaDecision.builder(QuotaDecision.Outcome.UNAVAILABLE)
                        .retryAfter(unavailableRetryAfter).fallback(fallenBack).build();
                default -> {
                    if (!fallbackActive.get() && fallbackActive.compareAndSet(false, true)) {
                        log.warn("quota fallback engaged: limits are enforced in this JVM until the store answers");
                        listener.onFallback(true);
                    }
                    // not a decision yet: the caller makes it in this JVM (see run(List))
                    yield QuotaDecision.builder(QuotaDecision.Outcome.UNAVAILABLE).retryAfter(unavailableRetryAfter)
                            .fallback(fallenBack).build();
                }
            };
        }
        // read first: a compare-and-set that fails still takes the cache line from every other core
        if (fallbackActive.get() && fallbackActive.compareAndSet(true, false)) {
            log.info("quota fallback disengaged: the store answers again");
            listener.onFallback(false);
        }
        return decision;
    }

    /**
     * Decides in this JVM during an outage. A bucket of which this instance holds no token (capacity
     * 10 over 16 instances leaves ranks 10 to 15 none) refuses with 503, as {@code closed} would: the
     * instances that hold the limit's tokens answer for it.
     */
    private QuotaDecision local(List<Draw> slots, QuotaDecision.Fallback fallenBack) {
        for (Draw slot : slots) {
            if (slot.noShare() && slot.mode() == Mode.ENFORCE) {
                return QuotaDecision.builder(QuotaDecision.Outcome.UNAVAILABLE).retryAfter(unavailableRetryAfter)
                        .fallback(new QuotaDecision.Fallback(QuotaDecision.Fallback.Kind.LOCAL,
                        fallenBack.reason() + "; this instance holds no share of " + slot.policies().get(0))).build();
            }
        }
        return execute(fallback, slots).decidedBy(fallenBack);
    }

    /**
     * Gives back what {@code receipt} took for rule, shared and amount limits, to the store that
     * took it, once. Best effort: a failure is logged and reported, not thrown.
     */
    void refund(Receipt receipt) {
        if (!receipt.spend()) {
            return;
        }
        for (Take take : receipt.refundableTakes()) {
            try {
                call(() -> {
                    receipt.store().addTokens(take.key(), take.spec(), take.tokens());
                    return null;
                });
            } catch (QuotaStoreException e) {
                log.warn("could not give back {} tokens to {}: {}", take.tokens(), take.key(), e.getMessage());
                listener.onStoreFailure(e);
            }
        }
    }

    /**
     * Changes the plan charge {@code receipt} names to {@code actual}, once, in one store call to the
     * store that charged it: the difference taken regardless of what the buckets hold (a debt where
     * they lack it) or given back. A receipt refunded or settled before is left alone. A store
     * failure is logged and reported, not thrown.
     */
    Settlement settle(Receipt receipt, long actual) {
        return settle(receipt, actual, 0);
    }

    /**
     * {@link #settle(Receipt, long)} of a decision that has paid {@code drawn} tokens more than its
     * estimate while its response streamed ({@link RunningCost}): the change is counted from both.
     */
    Settlement settle(Receipt receipt, long actual, long drawn) {
        if (actual < 0) {
            throw new IllegalArgumentException("actual cost must be >= 0 but was " + actual);
        }
        Settlement.Outcome refused = receipt.settle();
        List<Take> charged = receipt.settleableTakes();
        long estimate = charged.isEmpty() ? 0 : charged.get(0).tokens() + drawn;
        if (refused != null) {
            return new Settlement(refused, estimate, actual, 0);
        }
        long change = actual - estimate;
        if (change == 0) {
            return new Settlement(Settlement.Outcome.EXACT, estimate, actual, 0);
        }
        List<Adjustment> adjustments = new ArrayList<>(charged.size());
        for (Take take : charged) {
            adjustments.add(Adjustment.ofTokens(take.key(), take.spec(), -change));
        }
        try {
            call(() -> {
                receipt.planStore().adjust(adjustments);
                return null;
            });
        } catch (QuotaStoreException e) {
            log.warn("could not settle a cost of {} against an estimate of {} in {}: {}", actual, estimate,
                    charged.get(0).key(), e.getMessage());
            listener.onStoreFailure(e);
            return new Settlement(Settlement.Outcome.FAILED, estimate, actual, 0);
        }
        return new Settlement(change > 0 ? Settlement.Outcome.CHARGED : Settlement.Outcome.GIVEN_BACK, estimate,
                actual, change);
    }

    /**
     * Takes {@code tokens} more from every plan bucket {@code receipt} charged, in the store that
     * charged them, if each has them (a shadow bucket never refuses): one store call, the results in
     * the order of {@link Receipt#settleableTakes()}. A receipt without plan takes takes nothing.
     *
     * @throws QuotaStoreException if the store cannot answer (not reported here: the caller does)
     */
    List<ConsumeResult> draw(Receipt receipt, long tokens) {
        List<Take> charged = receipt.settleableTakes();
        List<Take> takes = new ArrayList<>(charged.size());
        for (Take take : charged) {
            takes.add(take.shadow() ? Take.shadow(take.key(), take.spec(), tokens) : Take.of(take.key(), take.spec(), tokens));
        }
        return call(() -> receipt.planStore().tryConsume(takes));
    }

    /** Tells the listeners of a store failure the caller handled. */
    void failed(QuotaStoreException e) {
        listener.onStoreFailure(e);
    }

    /**
     * Gives back the in-flight leases {@code receipt} holds, to the store that holds them, once:
     * one store call per lease set. Best effort: a failure is logged and reported, not thrown; the
     * lease then comes back at its deadline.
     *
     * @return whether this call gave them back: false when the receipt holds none, or another call did
     */
    boolean release(Receipt receipt) {
        if (!receipt.release()) {
            return false;
        }
        for (Adjustment lease : receipt.leases()) {
            try {
                call(() -> {
                    receipt.leaseStore().releaseLease(lease.key(), lease.spec(), lease.lease());
                    return null;
                });
            } catch (QuotaStoreException e) {
                log.warn("could not give back the in-flight lease of {} ({}); it comes back {} after it was taken",
                        lease.key(), e.getMessage(), lease.spec().leaseTimeout());
                listener.onStoreFailure(e);
            }
        }
        return true;
    }

    /**
     * One store call: the takes {@link DecisionCharge} makes of the draws, then the outcome from what
     * each bucket answered, and the receipt with what the plan was charged. An enforced bucket that lacked its tokens refuses; failing that, a shadow
     * one that lacked them makes a shadow rejection.
     */
    private QuotaDecision execute(QuotaStore target, List<Draw> slots) {
        // the time only places calendar windows: not read (an Instant per decision) without one
        Instant now = Instant.EPOCH;
        for (int i = 0; i < slots.size(); i++) {
            if (slots.get(i).window() != null) {
                now = clock.instant();
                break;
            }
        }
        // the in-JVM fallback's leases are this JVM's own: no holder there
        List<Take> takes = DecisionCharge.of(slots, target == store ? leaseHolder() : LeaseHolder.NONE);
        List<ConsumeResult> results;
        try { // not through call(): a lambda per decision
            LeasedShares leased = target == store ? shares : null;
            results = leased == null ? target.tryConsume(takes) : leased.consume(slots, takes, liveInstances());
        } catch (RuntimeException e) {
            throw StoreFailures.thrown("store failed", e);
        }
        QuotaDecision.Outcome outcome = QuotaDecision.Outcome.ALLOWED;
        Duration retryAfter = Duration.ZERO;
        int violatedSlot = firstLacking(slots, results, Mode.ENFORCE);
        if (violatedSlot >= 0) {
            Draw violated = slots.get(violatedSlot);
            if (violated.exceedsCapacity()) {
                outcome = QuotaDecision.Outcome.EXCEEDS_LIMIT;
            } else {
                outcome = QuotaDecision.Outcome.REJECTED;
                retryAfter = retryAfter(violated, results.get(violatedSlot), now);
            }
        } else {
            violatedSlot = firstLacking(slots, results, Mode.SHADOW);
            if (violatedSlot >= 0) {
                outcome = QuotaDecision.Outcome.SHADOW_REJECTED;
                retryAfter = retryAfter(slots.get(violatedSlot), results.get(violatedSlot), now);
            }
        }
        List<LimitStatus> limits = statuses(slots, results, now);
        return QuotaDecision.builder(outcome).limits(limits).violated(violated(limits, slots, violatedSlot))
                .retryAfter(retryAfter).receipt(receipt(outcome, slots, takes, results, target)).build();
    }

    /** Who takes leases now: {@link LeaseHolder#NONE} (every lease held to its deadline) when the supplier fails. */
    private LeaseHolder leaseHolder() {
        try {
            return Objects.requireNonNull(leaseHolder.get(), "lease holder");
        } catch (RuntimeException e) {
            log.debug("no lease holder ({}): leases taken now are held until given back or their deadline",
                    e.toString());
            return LeaseHolder.NONE;
        }
    }

    /** How long until the request could pass on the bucket that refused it; zero for an in-flight limit. */
    private static Duration retryAfter(Draw violated, ConsumeResult result, Instant now) {
        // when a running request ends is nobody's guess
        return violated.role() == LimitStatus.Role.IN_FLIGHT ? Duration.ZERO : violated.retryAfter(result, now);
    }

    /**
     * The first bucket of {@code mode} that lacked its tokens, or -1. An in-flight limit is named
     * only when no rate limit lacked too: a rate limit's retry-after is a wait the client must
     * make anyway, where an in-flight limit knows none.
     */
    private static int firstLacking(List<Draw> slots, List<ConsumeResult> results, Mode mode) {
        int inFlight = -1;
        for (int i = 0; i < results.size(); i++) {
            if (slots.get(i).mode() == mode && !results.get(i).sufficient()) {
                if (slots.get(i).role() != LimitStatus.Role.IN_FLIGHT) {
                    return i;
                }
                inFlight = inFlight < 0 ? i : inFlight;
            }
        }
        return inFlight;
    }

    /** The status of every limit of {@code slots}, in order, from what each bucket answered. */
    private static List<LimitStatus> statuses(List<Draw> slots, List<ConsumeResult> results, Instant now) {
        int limits = 0;
        for (int i = 0; i < slots.size(); i++) { // indexed: no iterator per decision
            limits += slots.get(i).declared().size();
        }
        // gathered in the thread's array and listed as they are (no list grown, copied, copied again)
        Object[] gathered = ListsOf.gather(limits);
        try {
            int count = 0;
            for (int i = 0; i < slots.size(); i++) {
                Draw slot = slots.get(i);
                ConsumeResult result = results.get(i);
                for (int k = 0; k < slot.declared().size(); k++) {
                    gathered[count++] = slot.status(result, now, k);
                }
            }
            return ListsOf.first(gathered, count);
        } finally {
            ListsOf.giveBack(gathered);
        }
    }

    /**
     * The status in {@code limits} ({@link #statuses}) that names the refusal of the slot
     * {@code violatedSlot}: its first exhausted limit, else its first; null when no slot refused.
     */
    private static @Nullable LimitStatus violated(List<LimitStatus> limits, List<Draw> slots, int violatedSlot) {
        if (violatedSlot < 0) {
            return null;
        }
        int from = 0;
        for (int i = 0; i < violatedSlot; i++) {
            from += slots.get(i).declared().size();
        }
        int to = from + slots.get(violatedSlot).declared().size();
        for (int k = from; k < to; k++) {
            if (limits.get(k).exhausted()) {
                return limits.get(k);
            }
        }
        return from < to ? limits.get(from) : null;
    }

    /**
     * What a decision of {@code outcome} took, on {@code target}, for a refund, a settle and the
     * leases to give back: {@link Receipt#NONE} when it took nothing any of them changes.
     */
    private static Receipt receipt(QuotaDecision.Outcome outcome, List<Draw> slots, List<Take> takes,
                                   List<ConsumeResult> results, QuotaStore target) {
        long planTokens = DecisionCharge.planTokens(slots, takes, results);
        // the store took every take's full tokens: a plan bucket that gave them holds the estimate
        boolean admitted = outcome == QuotaDecision.Outcome.ALLOWED
                || outcome == QuotaDecision.Outcome.SHADOW_REJECTED;
        // the take itself stands for the bucket: its key, spec and tokens are what a refund or
        // settle gives back or changes (a plan take's refusal tokens are not read there)
        List<Take> refundable = picked(Kept.REFUNDABLE, slots, takes, results);
        List<Take> settleable = admitted ? picked(Kept.SETTLEABLE, slots, takes, results) : List.of();
        List<Adjustment> leases = List.of();
        for (int i = 0; i < slots.size(); i++) {
            if (results.get(i).tokensTaken() && results.get(i).lease() != 0) {
                leases = leases(slots, results);
                break;
            }
        }
        return refundable.isEmpty() && planTokens == 0 && leases.isEmpty() ? Receipt.NONE
                : new Receipt(target, refundable, planTokens, settleable, leases);
    }

    /** Which takes a receipt keeps ({@link #picked}), of those that took their tokens. */
    private enum Kept {
        /** The takes a refund gives back. */
        REFUNDABLE {
            @Override
            boolean of(Draw slot) {
                return slot.refundable();
            }
        },
        /** The plan takes a settle changes: an admitted decision's only. */
        SETTLEABLE {
            @Override
            boolean of(Draw slot) {
                return slot.role() == LimitStatus.Role.PLAN && !slot.spec().leases();
            }
        };

        abstract boolean of(Draw slot);
    }

    /**
     * The takes of {@code kind} that took their tokens, as an immutable list the receipt keeps as
     * it is (most decisions have none, or one bucket: a one-limit decision's takes list is kept itself).
     */
    private static List<Take> picked(Kept kind, List<Draw> slots, List<Take> takes, List<ConsumeResult> results) {
        int n = 0;
        for (int i = 0; i < slots.size(); i++) {
            n += picks(kind, slots.get(i), results.get(i)) ? 1 : 0;
        }
        if (n == 0) {
            return List.of();
        }
        if (n == takes.size()) {
            return takes.size() == 1 ? takes : List.copyOf(takes);
        }
        Object[] out = ListsOf.gather(n);
        try {
            int k = 0;
            for (int i = 0; i < slots.size(); i++) {
                if (picks(kind, slots.get(i), results.get(i))) {
                    out[k++] = takes.get(i);
                }
            }
            return ListsOf.first(out, k);
        } finally {
            ListsOf.giveBack(out);
        }
    }

    private static boolean picks(Kept kind, Draw slot, ConsumeResult result) {
        return result.tokensTaken() && kind.of(slot);
    }

    /** The in-flight leases the decision holds, each as the release that gives its slot back. */
    private static List<Adjustment> leases(List<Draw> slots, List<ConsumeResult> results) {
        Object[] leases = ListsOf.gather(slots.size());
        try {
            int n = 0;
            for (int i = 0; i < slots.size(); i++) {
                ConsumeResult result = results.get(i);
                if (result.tokensTaken() && result.lease() != 0) {
                    Draw slot = slots.get(i);
                    leases[n++] = Adjustment.leaseRelease(slot.key(), slot.spec(), result.lease());
                }
            }
            return ListsOf.first(leases, n);
        } finally {
            ListsOf.giveBack(leases);
        }
    }

    /** Writes a "store unavailable" warning to the log: where they go unless a test takes them. */
    static void warn(String message) {
        log.warn(message);
    }

    /** The leased shares of this runner's store, or null when leasing is off. */
    @Nullable LeasedShares shares() {
        return shares;
    }

    /** CLOSED beats LOCAL beats OPEN: the most careful policy among the buckets involved. */
    private static FailurePolicy strictest(List<Draw> slots) {
        FailurePolicy result = FailurePolicy.OPEN;
        for (Draw slot : slots) {
            if (slot.onFailure() == FailurePolicy.CLOSED) {
                return FailurePolicy.CLOSED;
            }
            if (slot.onFailure() == FailurePolicy.LOCAL) {
                result = FailurePolicy.LOCAL;
            }
        }
        return result;
    }

    /** Any runtime failure of a store becomes a {@link QuotaStoreException}, so the failure policy applies. */
    static <T> T call(Supplier<T> call) {
        return StoreFailures.call("store failed", call);
    }

    /**
     * An outage must not flood the log: one warning a second (by the service's clock), carrying the
     * count of the failures since the previous one; those are logged at DEBUG only.
     */
    private void warnThrottled(QuotaStoreException e, String action) {
        LogThrottle.Permit permit = failureWarnings.offer();
        if (permit.write()) {
            long unwarned = permit.summary() == null ? 0 : permit.summary().count();
            warn.accept("quota store unavailable (" + e.getMessage() + "); " + action
                    + " (" + unwarned + " more since the last warning)");
        } else {
            log.debug("quota store unavailable ({}); {}", e.getMessage(), action);
        }
    }

    /** This instance's share of the limits while the store is down. */
    LocalShare share() {
        int instances = liveInstances();
        int rank;
        try {
            rank = instanceRank.getAsInt();
        } catch (RuntimeException e) {
            rank = -1; // unknown: every instance takes the quotient only, never more than the limit in all
        }
        return new LocalShare(instances, rank < instances ? rank : -1);
    }

    /**
     * How many instances share the limits while the store is down. A count that throws (a grid
     * whose own member is gone) keeps the last count it gave: a decision is never failed by it.
     */
    private int liveInstances() {
        try {
            int n = Math.max(1, liveInstances.getAsInt());
            // asked every decision: shared fields are read, and written only when they change,
            // so that no cache line of the JVM is written by every decision
            if (lastInstances != n) {
                lastInstances = n;
            }
            if (instancesFailing.get() && instancesFailing.compareAndSet(true, false)) {
                log.info("the live instance count answers again: {}", n);
            }
            return n;
        } catch (RuntimeException e) {
            if (!instancesFailing.get() && instancesFailing.compareAndSet(false, true)) {
                log.warn("the live instance count failed ({}); local limits stay divided by the last count, {}",
                        e.toString(), lastInstances);
            }
            return lastInstances;
        }
    }
}
