package dev.quota.core.spi;

import java.util.List;
import java.util.function.IntPredicate;

/**
 * What a consume takes from each of its buckets, given which buckets hold what: the one rule every
 * store applies, through {@link BucketMath#decide} (a store that sees all buckets at once) or
 * {@link SplitConsume} (one that changes them group by group). The figures it applies are the
 * takes' own ({@link Take}); the decision chose them.
 *
 * <ul>
 *   <li>Admitted, when every enforced take's bucket has its {@link Take#tokens()}: each enforced
 *       take gives them; the shadow takes give theirs only when every shadow take has them too
 *       (a shadow limit counts a request as enforcing it would: all of it, or none).</li>
 *   <li>Refused otherwise: each take with {@link Take#refusalTokens()} gives them, provided every
 *       such take has them; otherwise nothing is taken.</li>
 *   <li>Extra, only when admitted: a take that asks for {@link Take#extra()} tokens gets as many of
 *       them as its bucket still holds once its own tokens are taken ({@link #extra}); they never
 *       decide whether the consume is admitted.</li>
 * </ul>
 *
 * <p>Plan 10 per hour (1 when refused), rule 2 per minute: with the rule's bucket empty, the
 * consume is refused and takes 1 from the plan; with the plan's bucket empty as well, it takes
 * nothing. With the rule in shadow mode and its bucket empty, the consume is admitted and takes
 * 10 from the plan, nothing from the rule.
 */
public final class ChargeRule {

    private ChargeRule() {
    }

    /** Whether the consume is admitted: every enforced take's bucket has the take's tokens. */
    public static boolean admitted(List<Take> takes, IntPredicate hasTokens) {
        for (int i = 0; i < takes.size(); i++) {
            if (!takes.get(i).shadow() && !hasTokens.test(i)) {
                return false;
            }
        }
        return true;
    }

    /**
     * {@link #admitted(List, IntPredicate)} from what a store answered for each take: whether every
     * enforced take's result was {@link ConsumeResult#sufficient()} (no predicate made per consume).
     */
    public static boolean admitted(List<Take> takes, List<ConsumeResult> results) {
        for (int i = 0; i < takes.size(); i++) {
            if (!takes.get(i).shadow() && !results.get(i).sufficient()) {
                return false;
            }
        }
        return true;
    }

    /**
     * The extra tokens an admitted consume takes from {@code take}'s bucket beyond the take's own:
     * up to {@link Take#extra()}, as many as the bucket holds after the take's tokens. A bucket with
     * 30 tokens, a take of 1 asking 50 extra: 29 extra, and the bucket is empty.
     *
     * @param available the tokens the bucket holds once the take's own are taken (its smallest limit)
     */
    public static long extra(Take take, long available) {
        return take.extra() == 0 ? 0 : Math.min(take.extra(), Math.max(0, available));
    }

    /**
     * The tokens the consume takes from each bucket, in take order, beyond any {@link #extra}.
     *
     * @param hasTokens        whether take {@code i}'s bucket holds the take's tokens
     * @param hasRefusalTokens whether take {@code i}'s bucket holds its refusal tokens; asked only of
     *                         takes that have some, and only when the consume is refused
     */
    public static long[] taken(List<Take> takes, IntPredicate hasTokens, IntPredicate hasRefusalTokens) {
        int n = takes.size();
        long[] taken = new long[n];
        if (admitted(takes, hasTokens)) {
            boolean shadowsToo = true;
            for (int i = 0; i < n && shadowsToo; i++) {
                shadowsToo = !takes.get(i).shadow() || hasTokens.test(i);
            }
            for (int i = 0; i < n; i++) {
                Take take = takes.get(i);
                taken[i] = !take.shadow() || shadowsToo ? take.tokens() : 0;
            }
            return taken;
        }
        for (int i = 0; i < n; i++) {
            Take take = takes.get(i);
            if (take.chargedOnRefusal()) {
                if (!hasRefusalTokens.test(i)) {
                    return new long[n]; // one charged bucket cannot pay: the consume takes nothing
                }
                taken[i] = take.refusalTokens();
            }
        }
        return taken;
    }
}
