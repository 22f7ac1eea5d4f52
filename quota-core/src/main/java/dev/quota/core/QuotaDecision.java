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
 * <p>A value: equal when every part is. Made by {@link #bypassed()}, {@link #allowed(List)},
 * {@link #rejected(LimitStatus, Duration)} or {@link #builder(Outcome)}; a part added in a later
 * release gets a default and a builder method, so code that makes one keeps compiling.
 */
public final class QuotaDecision {

    private static final QuotaDecision BYPASS = builder(Outcome.BYPASSED).build();

    private final Outcome outcome;
    private final List<LimitStatus> limits;
    private final @Nullable LimitStatus violated;
    private final Duration retryAfter;
    private final Receipt receipt;
    private final @Nullable Fallback fallback;

    private QuotaDecision(Outcome outcome, List<LimitStatus> limits, @Nullable LimitStatus violated,
                          Duration retryAfter, Receipt receipt, @Nullable Fallback fallback) {
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(retryAfter, "retryAfter");
        Objects.requireNonNull(receipt, "receipt");
        if ((outcome == Outcome.REJECTED || outcome == Outcome.SHADOW_REJECTED || outcome == Outcome.EXCEEDS_LIMIT)
                && violated == null) {
            throw new IllegalArgumentException("a " + outcome + " decision must name the violated limit");
        }
        this.outcome = outcome;
        this.limits = List.copyOf(limits);
        this.violated = violated;
        this.retryAfter = retryAfter;
        this.receipt = receipt;
        this.fallback = fallback;
    }

    /** The decision for a caller that is not limited (config disabled, allow-listed): no limits. */
    public static QuotaDecision bypassed() {
        return BYPASS;
    }

    /**
     * An {@link Outcome#ALLOWED} decision under {@code limits} that took nothing ({@link Receipt#NONE})
     * and names no retry-after.
     *
     * @throws NullPointerException if {@code limits} or one of them is null
     */
    public static QuotaDecision allowed(List<LimitStatus> limits) {
        return new QuotaDecision(Outcome.ALLOWED, limits, null, Duration.ZERO, Receipt.NONE, null);
    }

    /**
     * A {@link Outcome#REJECTED} decision by {@code violated}, the only limit that applied, that
     * took nothing: the same request could pass in {@code retryAfter}.
     *
     * @throws NullPointerException if an argument is null
     */
    public static QuotaDecision rejected(LimitStatus violated, Duration retryAfter) {
        return new QuotaDecision(Outcome.REJECTED, List.of(violated), violated, retryAfter, Receipt.NONE, null);
    }

    /**
     * A builder for a decision of {@code outcome}: no limits, no violated limit, retry-after zero,
     * {@link Receipt#NONE} and no fallback until set. Whether the parts fit the outcome is checked
     * in {@link Builder#build()}.
     */
    public static Builder builder(Outcome outcome) {
        return new Builder(outcome);
    }

    /** What happened. */
    public Outcome outcome() {
        return outcome;
    }

    /** Every limit that applied, in plan, rule, shared, amount order; default empty. */
    public List<LimitStatus> limits() {
        return limits;
    }

    /**
     * The limit that rejected (or, in shadow mode, would have rejected) the request, or null (the
     * default).
     */
    public @Nullable LimitStatus violated() {
        return violated;
    }

    /**
     * How long until the same request could pass; zero (the default) unless rejected or
     * shadow-rejected.
     */
    public Duration retryAfter() {
        return retryAfter;
    }

    /** What the decision took; {@link Receipt#NONE} (the default) when nothing. */
    public Receipt receipt() {
        return receipt;
    }

    /** Null (the default) when the shared store decided; otherwise who decided instead, and why. */
    public @Nullable Fallback fallback() {
        return fallback;
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

    @Override
    public boolean equals(@Nullable Object o) {
        return o instanceof QuotaDecision other && outcome == other.outcome && limits.equals(other.limits)
                && Objects.equals(violated, other.violated) && retryAfter.equals(other.retryAfter)
                && receipt.equals(other.receipt) && Objects.equals(fallback, other.fallback);
    }

    @Override
    public int hashCode() {
        return Objects.hash(outcome, limits, violated, retryAfter, receipt, fallback);
    }

    @Override
    public String toString() {
        return "QuotaDecision[outcome=" + outcome + ", limits=" + limits + ", violated=" + violated
                + ", retryAfter=" + retryAfter + ", receipt=" + receipt + ", fallback=" + fallback + "]";
    }

    /** Collects a decision's parts; {@link #build()} checks that they fit its outcome. */
    public static final class Builder {
        private final Outcome outcome;
        private List<LimitStatus> limits = List.of();
        private @Nullable LimitStatus violated;
        private Duration retryAfter = Duration.ZERO;
        private Receipt receipt = Receipt.NONE;
        private @Nullable Fallback fallback;

        private Builder(Outcome outcome) {
            this.outcome = outcome;
        }

        /**
         * Every limit that applied, in plan, rule, shared, amount order; default none.
         *
         * @throws NullPointerException if {@code limits} is null (a null element: in {@link #build()})
         */
        public Builder limits(List<LimitStatus> limits) {
            this.limits = Objects.requireNonNull(limits, "limits");
            return this;
        }

        /**
         * The limit that rejected, or would have rejected, the request; default none. A
         * {@link Outcome#REJECTED}, {@link Outcome#SHADOW_REJECTED} or {@link Outcome#EXCEEDS_LIMIT}
         * decision needs one.
         */
        public Builder violated(@Nullable LimitStatus violated) {
            this.violated = violated;
            return this;
        }

        /**
         * How long until the same request could pass; default zero.
         *
         * @throws NullPointerException if {@code retryAfter} is null
         */
        public Builder retryAfter(Duration retryAfter) {
            this.retryAfter = Objects.requireNonNull(retryAfter, "retryAfter");
            return this;
        }

        /**
         * What the decision took; default {@link Receipt#NONE}.
         *
         * @throws NullPointerException if {@code receipt} is null
         */
        public Builder receipt(Receipt receipt) {
            this.receipt = Objects.requireNonNull(receipt, "receipt");
            return this;
        }

        /** Who decided instead of the shared store, and why; default null (the store decided). */
        public Builder fallback(@Nullable Fallback fallback) {
            this.fallback = fallback;
            return this;
        }

        /**
         * The decision.
         *
         * @throws NullPointerException if the outcome or one of the limits is null
         * @throws IllegalArgumentException if a refusal names no violated limit
         */
        public QuotaDecision build() {
            return new QuotaDecision(outcome, limits, violated, retryAfter, receipt, fallback);
        }
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
