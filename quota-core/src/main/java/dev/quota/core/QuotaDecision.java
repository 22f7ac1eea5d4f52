package dev.quota.core;

import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The answer to "may this caller spend these tokens now?" A rejection is a result, not an exception.
 *
 * <p>Carries everything the HTTP layer needs for {@code Retry-After}, {@code RateLimit} and the
 * problem body without another store round trip, and the {@link Receipt} of what it took, for
 * {@link QuotaService#refund(QuotaDecision)}.
 *
 * @param outcome    what happened
 * @param limits     every limit that applied, in plan, rule, shared, amount order
 * @param violated   the limit that rejected (or, in shadow mode, would have rejected) the request,
 *                   or null
 * @param retryAfter how long until the same request could pass; zero unless rejected or shadow-rejected
 * @param receipt    what the decision took; {@link Receipt#NONE} when nothing
 * @param fallback   null when the shared store decided; otherwise who decided instead, and why
 */
public record QuotaDecision(Outcome outcome, List<LimitStatus> limits, @Nullable LimitStatus violated,
                            Duration retryAfter, Receipt receipt, @Nullable Fallback fallback) {

    private static final QuotaDecision BYPASS =
            new QuotaDecision(Outcome.BYPASSED, List.of(), null, Duration.ZERO, Receipt.NONE);

    /** @throws IllegalArgumentException if a refusal names no violated limit */
    public QuotaDecision {
        Objects.requireNonNull(outcome, "outcome");
        limits = List.copyOf(limits);
        Objects.requireNonNull(retryAfter, "retryAfter");
        Objects.requireNonNull(receipt, "receipt");
        if ((outcome == Outcome.REJECTED || outcome == Outcome.SHADOW_REJECTED || outcome == Outcome.EXCEEDS_LIMIT)
                && violated == null) {
            throw new IllegalArgumentException("a " + outcome + " decision must name the violated limit");
        }
    }

    /** A decision the shared store made (or that needed no store). */
    public QuotaDecision(Outcome outcome, List<LimitStatus> limits, @Nullable LimitStatus violated,
                         Duration retryAfter, Receipt receipt) {
        this(outcome, limits, violated, retryAfter, receipt, null);
    }

    /** A decision that took nothing. */
    public QuotaDecision(Outcome outcome, List<LimitStatus> limits, @Nullable LimitStatus violated,
                         Duration retryAfter) {
        this(outcome, limits, violated, retryAfter, Receipt.NONE);
    }

    /** The decision for a caller that is not limited (config disabled, allow-listed): no limits. */
    public static QuotaDecision bypassed() {
        return BYPASS;
    }

    /**
     * Whether the request may proceed: true for {@link Outcome#ALLOWED}, {@link Outcome#UNENFORCED},
     * {@link Outcome#SHADOW_REJECTED} and {@link Outcome#BYPASSED}.
     */
    public boolean allowed() {
        return outcome != Outcome.REJECTED && outcome != Outcome.UNAVAILABLE && outcome != Outcome.EXCEEDS_LIMIT;
    }

    /** The advertised request limit with the fewest tokens left, for the {@code X-RateLimit-*} headers. */
    public @Nullable LimitStatus tightest() {
        if (violated != null && violated.advertised()) {
            return violated;
        }
        LimitStatus best = null;
        for (LimitStatus status : limits) {
            if (status.advertised() && (best == null || TIGHTER.compare(status, best) < 0)) {
                best = status;
            }
        }
        return best;
    }

    private static final Comparator<LimitStatus> TIGHTER = Comparator.comparingLong(LimitStatus::remaining)
            .thenComparing(LimitStatus::resetAfter, Comparator.reverseOrder());

    /** This decision, marked as made by {@code fallback} instead of the shared store. */
    QuotaDecision decidedBy(Fallback fallback) {
        return new QuotaDecision(outcome, limits, violated, retryAfter, receipt, fallback);
    }

    /**
     * Who answered a decision the shared store did not make, and why: the in-JVM buckets of
     * {@link FailurePolicy#LOCAL}, the {@link FailurePolicy#OPEN} or {@link FailurePolicy#CLOSED}
     * policy (all three only during an {@link QuotaStoreException#outage() established outage}), or
     * {@link Kind#SHED}: the store did not answer this call in time while it serves the others, so
     * the request is answered 503 rather than counted twice.
     *
     * @param kind   who answered
     * @param reason the store's failure, as its exception said it (for logs and people, not for
     *               metric tags)
     */
    public record Fallback(Kind kind, String reason) {

        /** @throws NullPointerException if an argument is null */
        public Fallback {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(reason, "reason");
        }

        /** Who answered instead of the shared store. */
        public enum Kind {
            /** The in-JVM buckets of {@link FailurePolicy#LOCAL}, during an outage: allowed or rejected. */
            LOCAL,
            /** {@link FailurePolicy#OPEN}, during an outage: admitted unenforced. */
            OPEN,
            /** {@link FailurePolicy#CLOSED}, during an outage: refused with 503. */
            CLOSED,
            /** The store was serving but did not answer this call: refused with 503, whatever the policy. */
            SHED;

            /** The policy's kind. */
            static Kind of(FailurePolicy policy) {
                return switch (policy) {
                    case LOCAL -> LOCAL;
                    case OPEN -> OPEN;
                    case CLOSED -> CLOSED;
                };
            }
        }
    }

    /** The kinds of decision. */
    public enum Outcome {
        /** Every limit had tokens; they were taken. */
        ALLOWED,
        /**
         * A limit lacked tokens. Nothing was taken from the rule, shared and amount limits; the
         * request still costs the plan's request limits one token each (the request was made),
         * whichever limit refused, when each of them has one: a request costing 10 against a plan
         * with 2 tokens left is refused and leaves 1.
         */
        REJECTED,
        /**
         * A limit can never give this many tokens: the request needs more than the limit's capacity
         * (an amount over the whole daily limit). Retrying does not help; there is no retry-after.
         * The plan's request limits are charged as for {@link #REJECTED}.
         */
        EXCEEDS_LIMIT,
        /** The store was down and the failure policy admitted the request unenforced. */
        UNENFORCED,
        /**
         * The store could not answer: down, and the failure policy rejected the request, or slow on
         * this call while serving others (HTTP 503; {@link QuotaDecision#fallback()} says which).
         */
        UNAVAILABLE,
        /**
         * A limit in {@link Mode#SHADOW} lacked tokens: the request proceeds
         * ({@link QuotaDecision#allowed()} is true); {@link QuotaDecision#violated()} and
         * {@link QuotaDecision#retryAfter()} say what enforcing would have done. Nothing was taken
         * from the shadow limits; the enforced limits took their tokens.
         */
        SHADOW_REJECTED,
        /**
         * Not limited: the config is disabled ({@code enabled: false}) or the caller is allow-listed.
         * The store was not touched; {@link QuotaDecision#limits()} is empty.
         */
        BYPASSED
    }
}
