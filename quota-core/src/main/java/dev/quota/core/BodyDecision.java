package dev.quota.core;

import java.util.ArrayList;
import java.util.List;

/**
 * A decision taken in two steps because its amount is in the request's body: the plan's tokens
 * when the request arrives ({@link QuotaService#decideBeforeBody}), the rule's and the amount's
 * once the body is read ({@link QuotaService#decideAfterBody}). A body that is slow to come costs
 * its sender a request token at once, and a caller whose plan is spent is refused before its body
 * is read at all.
 *
 * <p>Both steps together take what one decision would, with one difference: a refusal by the rule
 * or the amount leaves the plan charged the rule's cost (taken on arrival), where one decision
 * would charge one token. With the usual cost of 1 they are the same.
 */
final class BodyDecision {

    private BodyDecision() {
    }

    /**
     * The decision of both steps: every limit of both, in plan, rule, shared, amount order; the
     * second step's outcome, unless it admitted and the first reported something else (a shadow
     * rejection, an unenforced plan); the second step's receipt (the plan's tokens are never
     * refunded, so it covers both), with the plan tokens the first step took.
     */
    static QuotaDecision merge(QuotaDecision beforeBody, QuotaDecision afterBody) {
        List<LimitStatus> limits = new ArrayList<>(beforeBody.limits().size() + afterBody.limits().size());
        limits.addAll(beforeBody.limits());
        limits.addAll(afterBody.limits());
        QuotaDecision outcomeOf = afterBody.outcome() == QuotaDecision.Outcome.ALLOWED ? beforeBody : afterBody;
        return QuotaDecision.builder(outcomeOf.outcome()).limits(limits).violated(outcomeOf.violated())
                .retryAfter(outcomeOf.retryAfter()).receipt(Receipt.both(beforeBody.receipt(), afterBody.receipt()))
                .build();
    }
}
