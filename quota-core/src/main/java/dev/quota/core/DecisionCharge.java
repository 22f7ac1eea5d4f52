package dev.quota.core;

import dev.quota.core.internal.ListsOf;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ChargeRule;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.LeaseHolder;
import dev.quota.core.spi.Take;
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
 *
 * <p>What the plan was charged, from what the store answered, is {@link #planTokens}: the figure
 * a decision's {@link Receipt} carries, and what {@link TopCustomers} counts as spending.
 */
final class DecisionCharge {

    /** A refused request still costs its plan one token: it was made. */
    static final long REFUSED_REQUEST = 1;

    private DecisionCharge() {
    }

    /** The takes of one decision, in draw order, without a {@link LeaseHolder}. */
    static List<Take> of(List<Draw> draws) {
        return of(draws, LeaseHolder.NONE);
    }

    /**
     * The takes of one decision, in draw order; a lease set's taken by {@code holder}: its slot
     * records the holder, and the slots of instances it knows dead are freed first.
     */
    static List<Take> of(List<Draw> draws, LeaseHolder holder) {
        if (draws.size() == 1) {
            return draws.get(0); // a one-limit decision's: the draw is the list of its take
        }
        // an immutable list of its own array, which a receipt keeps as it is: no list grown and copied
        Object[] takes = ListsOf.gather(draws.size());
        // NONE, handed round where no instance registry is wired, is a sentinel: tested by identity
        @SuppressWarnings("ReferenceEquality")
        boolean registered = holder != LeaseHolder.NONE;
        try {
            for (int i = 0; i < draws.size(); i++) { // indexed: no iterator per decision
                Take take = of(draws.get(i));
                takes[i] = registered && take.spec().leases() ? take.heldBy(holder) : take;
            }
            return ListsOf.first(takes, draws.size());
        } finally {
            ListsOf.giveBack(takes);
        }
    }

    /**
     * The tokens the consume of {@code takes} (made of {@code draws}) took from the plan, given what
     * the store answered for each: a plan take's tokens when the consume was admitted, its refusal
     * tokens when it was refused, nothing when its bucket gave nothing (the plan itself refused, or
     * a plan in shadow mode lacked them). A plan's buckets (its calendar day beside its burst) are
     * each charged the same tokens: they count once.
     */
    static long planTokens(List<Draw> draws, List<Take> takes, List<ConsumeResult> results) {
        boolean admitted = ChargeRule.admitted(takes, results);
        long charged = 0;
        for (int i = 0; i < draws.size(); i++) {
            if (draws.get(i).role() == LimitStatus.Role.PLAN && results.get(i).tokensTaken()) {
                Take take = takes.get(i);
                charged = Math.max(charged, admitted ? take.tokens() : take.refusalTokens());
            }
        }
        return charged;
    }

    /** The take of one draw: made with the draw ({@link #take}). */
    static Take of(Draw draw) {
        return draw.take();
    }

    /** The take of a draw of {@code tokens} from the bucket {@code key} by a limit of {@code role} in {@code mode}. */
    static Take take(BucketKey key, BucketSpec spec, long tokens, LimitStatus.Role role, Mode mode) {
        boolean shadow = mode == Mode.SHADOW;
        long refused = !shadow && role == LimitStatus.Role.PLAN ? REFUSED_REQUEST : 0;
        return shadow ? Take.shadow(key, spec, tokens) : Take.of(key, spec, tokens, refused);
    }
}
