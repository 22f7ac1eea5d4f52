package dev.quota.core;

import dev.quota.core.spi.ChargeRule;
import dev.quota.core.spi.Take;
import java.util.ArrayList;
import java.util.List;

/**
 * What a decision charges each of its buckets, admitted or refused: the one place that turns the
 * draws {@link BucketLayout} laid out into the takes a store applies by {@link ChargeRule}, in the
 * decision's one store call.
 *
 * <table>
 *   <caption>Tokens a draw of {@code n} tokens gives</caption>
 *   <tr><th>draw</th><th>admitted</th><th>refused</th><th>its own lack of tokens</th></tr>
 *   <tr><td>plan, enforced</td><td>n</td><td>1 (the request was made), unless the plan itself
 *       lacks it: then nothing is taken anywhere</td><td>refuses</td></tr>
 *   <tr><td>rule, shared, amount, failed-key guard; enforced</td><td>n</td><td>0</td><td>refuses</td></tr>
 *   <tr><td>any, in shadow mode</td><td>n when every draw has its tokens, else 0</td><td>0</td>
 *       <td>never refuses: the decision is a shadow rejection</td></tr>
 * </table>
 */
final class DecisionCharge {

    /** A refused request still costs its plan one token: it was made. */
    static final long REFUSED_REQUEST = 1;

    private DecisionCharge() {
    }

    /** The takes of one decision, in draw order. */
    static List<Take> of(List<Draw> draws) {
        List<Take> takes = new ArrayList<>(draws.size());
        for (Draw draw : draws) {
            takes.add(of(draw));
        }
        return takes;
    }

    /** The take of one draw. */
    static Take of(Draw draw) {
        boolean shadow = draw.mode() == Mode.SHADOW;
        long refused = !shadow && draw.role() == LimitStatus.Role.PLAN ? REFUSED_REQUEST : 0;
        return new Take(draw.key(), draw.spec(), draw.tokens(), refused, shadow);
    }
}
