package dev.quota.core;

import dev.quota.core.internal.BucketUse;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.QuotaStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes the tokens of one decision from its buckets, all or nothing, and applies the failure
 * policy when the store cannot answer.
 *
 * <p>Buckets are tried in order. When an enforced bucket lacks tokens, the tokens already taken are
 * given back and the decision is a rejection. When a shadow bucket lacks tokens, the decision
 * becomes a shadow rejection: the tokens of shadow buckets are given back (the request would have
 * been rejected, so shadow limits count it as rejected), later shadow buckets are skipped, and
 * enforced buckets are still checked and keep their tokens, because the request really is served.
 * Without that, a plan in shadow that ran dry would let requests past an enforced rule unchecked.
 */
final class BucketRunner {

    private static final Logger log = LoggerFactory.getLogger(QuotaService.class);

    private final QuotaStore store;
    private final QuotaStore fallback;
    private final Clock clock;
    private final IntSupplier liveInstances;
    private final Duration unavailableRetryAfter;
    private final QuotaListener listener;
    /** Whether the last decision under {@link FailurePolicy#LOCAL} went to the fallback. */
    private final AtomicBoolean fallbackActive = new AtomicBoolean();
    /** When the next "store unavailable" warning may be logged (System.nanoTime): one a second. */
    private final AtomicLong nextFailureWarning = new AtomicLong(System.nanoTime());
    /** Failures answered by the policy since the last warning. */
    private final AtomicLong unwarnedFailures = new AtomicLong();

    BucketRunner(QuotaStore store, QuotaStore fallback, Clock clock, IntSupplier liveInstances,
                 Duration unavailableRetryAfter, QuotaListener listener) {
        this.store = store;
        this.fallback = fallback;
        this.clock = clock;
        this.liveInstances = liveInstances;
        this.unavailableRetryAfter = unavailableRetryAfter;
        this.listener = listener;
    }

    /** Builds the bucket uses for a limit divisor (1 normally, the live instance count locally). */
    interface Planner {
        List<BucketUse> uses(int divisor);
    }

    /** A store call whose failure becomes a {@link QuotaStoreException}. */
    interface StoreCall<T> {
        T call();
    }

    QuotaDecision run(Planner planner) {
        List<BucketUse> uses = planner.uses(1);
        QuotaDecision decision;
        try {
            decision = execute(store, uses);
        } catch (QuotaStoreException e) {
            listener.onStoreFailure(e);
            FailurePolicy policy = strictest(uses);
            warnThrottled(e, policy);
            switch (policy) {
                case OPEN:
                    return new QuotaDecision(QuotaDecision.Outcome.UNENFORCED, List.of(), null, Duration.ZERO);
                case CLOSED:
                    return new QuotaDecision(QuotaDecision.Outcome.UNAVAILABLE, List.of(), null, unavailableRetryAfter);
                default:
                    if (fallbackActive.compareAndSet(false, true)) {
                        log.warn("quota fallback engaged: limits are enforced in this JVM until the store answers");
                        listener.onFallback(true);
                    }
                    int instances = Math.max(1, liveInstances.getAsInt());
                    return execute(fallback, planner.uses(instances));
            }
        }
        if (fallbackActive.compareAndSet(true, false)) {
            log.info("quota fallback disengaged: the store answers again");
            listener.onFallback(false);
        }
        return decision;
    }

    /** Gives back the tokens {@code uses} took from the shared store; failures are logged. */
    void giveBack(List<BucketUse> uses) {
        boolean[] taken = new boolean[uses.size()];
        Arrays.fill(taken, true);
        refund(store, uses, taken, null);
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
        boolean[] taken = new boolean[uses.size()];
        int[] firstStatus = new int[uses.size()];
        LimitStatus shadowViolated = null;
        Duration shadowRetryAfter = Duration.ZERO;
        for (int i = 0; i < uses.size(); i++) {
            BucketUse use = uses.get(i);
            if (shadowViolated != null && use.mode() == Mode.SHADOW) {
                continue;
            }
            ConsumeResult result;
            try {
                result = call(() -> target.tryConsume(use.key(), use.spec(), use.tokens()));
            } catch (QuotaStoreException e) {
                refund(target, uses, taken, null);
                throw e;
            }
            int before = statuses.size();
            firstStatus[i] = before;
            use.statuses(result, now, statuses);
            if (result.consumed()) {
                taken[i] = true;
                continue;
            }
            LimitStatus violated = statuses.subList(before, statuses.size()).stream()
                    .filter(LimitStatus::exhausted).findFirst().orElse(statuses.get(before));
            Duration retryAfter = use.window() != null
                    ? use.window().remaining(now)
                    : Duration.ofNanos(Math.max(1, result.nanosToWait()));
            if (use.mode() == Mode.ENFORCE) {
                creditGivenBack(uses, taken, firstStatus, statuses, null);
                refund(target, uses, taken, null);
                return new QuotaDecision(QuotaDecision.Outcome.REJECTED, statuses, violated, retryAfter);
            }
            if (shadowViolated == null) {
                shadowViolated = violated;
                shadowRetryAfter = retryAfter;
                creditGivenBack(uses, taken, firstStatus, statuses, Mode.SHADOW);
                refund(target, uses, taken, Mode.SHADOW);
            }
        }
        if (shadowViolated != null) {
            return new QuotaDecision(QuotaDecision.Outcome.SHADOW_REJECTED, statuses, shadowViolated, shadowRetryAfter);
        }
        return new QuotaDecision(QuotaDecision.Outcome.ALLOWED, statuses, null, Duration.ZERO);
    }

    /**
     * Reports the tokens about to be given back in the statuses, so a rejection's headers show what
     * is really left (capped at capacity, like the store's refund).
     */
    private static void creditGivenBack(List<BucketUse> uses, boolean[] taken, int[] firstStatus,
                                        List<LimitStatus> statuses, @Nullable Mode onlyMode) {
        for (int j = 0; j < uses.size(); j++) {
            BucketUse use = uses.get(j);
            if (!taken[j] || (onlyMode != null && use.mode() != onlyMode)) {
                continue;
            }
            for (int k = firstStatus[j]; k < firstStatus[j] + use.declared().size(); k++) {
                LimitStatus s = statuses.get(k);
                long remaining = Math.min(s.limit().capacity(), s.remaining() + use.tokens());
                statuses.set(k, new LimitStatus(s.policy(), s.limit(), remaining, s.resetAfter(), s.retryAfter(),
                        s.requests()));
            }
        }
    }

    /**
     * Gives back the tokens of every use marked in {@code taken} (of {@code onlyMode}, when not
     * null), newest first, and unmarks them. Failures are logged and reported, not thrown.
     */
    private void refund(QuotaStore target, List<BucketUse> uses, boolean[] taken, @Nullable Mode onlyMode) {
        for (int j = uses.size() - 1; j >= 0; j--) {
            BucketUse use = uses.get(j);
            if (!taken[j] || (onlyMode != null && use.mode() != onlyMode)) {
                continue;
            }
            taken[j] = false;
            try {
                target.addTokens(use.key(), use.spec(), use.tokens());
            } catch (RuntimeException e) {
                log.warn("could not give back {} tokens to {}: {}", use.tokens(), use.key(), e.toString());
                listener.onStoreFailure(e);
            }
        }
    }

    /** Any runtime failure of a store becomes a QuotaStoreException, so the failure policy applies. */
    static <T> T call(StoreCall<T> call) {
        try {
            return call.call();
        } catch (QuotaStoreException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new QuotaStoreException("store failed: " + e, e);
        }
    }

    /** An outage must not flood the log: one warning a second, with the count of the others. */
    private void warnThrottled(QuotaStoreException e, FailurePolicy policy) {
        long now = System.nanoTime();
        long due = nextFailureWarning.get();
        if (now - due >= 0 && nextFailureWarning.compareAndSet(due, now + 1_000_000_000L)) {
            log.warn("quota store unavailable ({}); applying failure policy {} ({} more since the last warning)",
                    e.getMessage(), policy, unwarnedFailures.getAndSet(0));
        } else {
            unwarnedFailures.incrementAndGet();
            log.debug("quota store unavailable ({}); applying failure policy {}", e.getMessage(), policy);
        }
    }
}
