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
 * problem body without another store round trip.
 *
 * @param outcome    what happened
 * @param limits     every limit that applied, in plan, rule, shared order
 * @param violated   the limit that rejected (or, in shadow mode, would have rejected) the request,
 *                   or null
 * @param retryAfter how long until the same request could pass; zero unless rejected or shadow-rejected
 */
public record QuotaDecision(Outcome outcome, List<LimitStatus> limits, @Nullable LimitStatus violated,
                            Duration retryAfter) {

    private static final QuotaDecision BYPASS = new QuotaDecision(Outcome.BYPASSED, List.of(), null, Duration.ZERO);

    /** @throws IllegalArgumentException if a rejection or shadow rejection names no violated limit */
    public QuotaDecision {
        Objects.requireNonNull(outcome, "outcome");
        limits = List.copyOf(limits);
        Objects.requireNonNull(retryAfter, "retryAfter");
        if ((outcome == Outcome.REJECTED || outcome == Outcome.SHADOW_REJECTED) && violated == null) {
            throw new IllegalArgumentException("a " + outcome + " decision must name the violated limit");
        }
    }

    /** The decision for a caller that is not limited (config disabled, allow-listed): no limits. */
    public static QuotaDecision bypassed() {
        return BYPASS;
    }

    /**
     * Whether the request may proceed: true for every outcome but {@link Outcome#REJECTED} and
     * {@link Outcome#UNAVAILABLE}.
     */
    public boolean allowed() {
        return outcome != Outcome.REJECTED && outcome != Outcome.UNAVAILABLE;
    }

    /** The request-counting limit with the fewest tokens left, for the {@code X-RateLimit-*} headers. */
    public @Nullable LimitStatus tightest() {
        if (violated != null && violated.requests()) {
            return violated;
        }
        return limits.stream().filter(LimitStatus::requests)
                .min(Comparator.comparingLong(LimitStatus::remaining)
                        .thenComparing(LimitStatus::resetAfter, Comparator.reverseOrder()))
                .orElse(null);
    }

    /** The kinds of decision. */
    public enum Outcome {
        /** Every limit had tokens; they were taken. */
        ALLOWED,
        /** A limit lacked tokens; nothing was taken from any limit. */
        REJECTED,
        /** The store could not answer and the failure policy admitted the request unenforced. */
        UNENFORCED,
        /** The store could not answer and the failure policy rejected the request (HTTP 503). */
        UNAVAILABLE,
        /**
         * A limit in {@link Mode#SHADOW} lacked tokens: the request proceeds
         * ({@link QuotaDecision#allowed()} is true); {@link QuotaDecision#violated()} and
         * {@link QuotaDecision#retryAfter()} say what enforcing would have done. Tokens taken from
         * other shadow buckets were given back; those of enforced buckets were kept.
         */
        SHADOW_REJECTED,
        /**
         * Not limited: the config is disabled ({@code enabled: false}) or the caller is allow-listed.
         * The store was not touched; {@link QuotaDecision#limits()} is empty.
         */
        BYPASSED
    }
}
