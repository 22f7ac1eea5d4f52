package dev.quota.core;

import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.Take;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cost of a response that is charged while it streams: rows of an export, tokens of a model's
 * answer. The decision charged the rule's cost (the estimate) when the request came in; as the
 * stream grows past what it has paid, {@link #cover} draws the next batch ({@link Streams#batch})
 * from the very plan buckets the decision charged, in one store call, and answers false once the
 * customer's plan cannot give it: the stream must end. {@link #finish} settles the cost to what was
 * actually streamed, giving back the part of the last batch it did not use.
 *
 * <pre>{@code
 * RunningCost cost = service.runningCost(decision);   // plan of 500 an hour: batches of 25
 * long rows = 0;
 * for (Row row : rows) {
 *     write(row);
 *     if (!cost.cover(++rows + 1)) break;              // room for one more row? else stop here
 * }
 * cost.finish(rows);
 * }</pre>
 *
 * <p><b>The bound.</b> A batch is drawn only when the plan has all of it; when it has less, what it
 * has ({@code r > 0}) is drawn instead; when it has nothing, the stream may still run
 * {@code max(0, debtCap + r)} tokens on credit ({@code r <= 0}: a customer in debt already gets
 * less), and no further. So {@code cover(n)} is true exactly while {@code n} is at most what the
 * customer had when the stream started (plus refill while it ran) plus {@link Streams#debtCap()}:
 * a stream that asks before each token it writes leaves its customer at most {@code debtCap} in
 * debt, and one that reports after the fact in pieces of at most {@code p} tokens overruns that by
 * less than {@code p}. Meanwhile it holds back at most one batch it has not written yet (given back
 * by {@link #finish}), the only way it can refuse another request of its customer early. Store
 * calls: one per batch, plus at most two where the plan runs out (a partial batch, then the
 * refusal), plus the settle.
 *
 * <p>A store failure while drawing is logged and told to the listeners, and ends the stream as a
 * refusal would (no credit). A decision that charged no plan (bypassed, unenforced, settled or
 * refunded already) covers everything without a store call. Thread-safe; a stream's own thread
 * waits for its draws, nothing else does.
 */
public final class RunningCost {

    private static final Logger log = LoggerFactory.getLogger(RunningCost.class);
    /** Draws one {@link #cover} may make: a batch, then what the plan had left, then a last try if another request took it. */
    private static final int DRAWS = 3;

    private final QuotaService service;
    private final DecisionRunner runner;
    private final QuotaDecision decision;
    private final long batch;
    private final long debtCap;
    /** Whether draws are made: false for a decision that charged no plan. */
    private final boolean charging;
    /** Guarded by this: tokens drawn beyond the estimate so far. */
    private long drawn;
    /** Guarded by this: tokens the decision has paid: its estimate and every draw. */
    private long paid;
    /** Guarded by this: tokens the stream may run beyond {@link #paid}, set once the plan ran out. */
    private long credit;
    /** Guarded by this: whether the plan ran out (or the store failed): no more draws. */
    private boolean exhausted;
    /** Guarded by this: whether {@link #finish} ran. */
    private boolean finished;

    RunningCost(QuotaService service, DecisionRunner runner, QuotaDecision decision, Streams streams) {
        this.service = service;
        this.runner = runner;
        this.decision = decision;
        List<Take> charged = decision.receipt().settleableTakes();
        this.charging = decision.receipt().settleable();
        long smallest = Long.MAX_VALUE;
        for (Take take : charged) {
            for (Limit limit : take.spec().limits()) {
                smallest = Math.min(smallest, limit.capacity());
            }
        }
        this.batch = streams.batch(smallest);
        this.debtCap = streams.debtCap();
        this.paid = charged.isEmpty() ? 0 : charged.get(0).tokens();
    }

    /**
     * Makes sure the stream has paid for {@code total} tokens in all, drawing batches as needed;
     * true when it has (or may run that far on credit), false when the customer's plan cannot give
     * them: write nothing more. Once false, false for every larger total, without a store call.
     *
     * @param total the tokens the stream will have cost, {@code >= 0}
     * @throws IllegalArgumentException if {@code total} is negative
     */
    public synchronized boolean cover(long total) {
        if (total < 0) {
            throw new IllegalArgumentException("total must be >= 0 but was " + total);
        }
        if (!charging || total <= paid + credit) {
            return true;
        }
        if (exhausted || finished) {
            return false;
        }
        long want = Math.max(batch, total - paid);
        long left = 0;
        for (int i = 0; i < DRAWS && total > paid; i++) {
            List<ConsumeResult> results;
            try {
                results = runner.draw(decision.receipt(), want);
            } catch (QuotaStoreException e) {
                log.warn("could not draw {} tokens for a stream; it ends here: {}", want, e.getMessage());
                runner.failed(e);
                exhausted = true;
                return false;
            }
            if (admitted(results)) {
                paid += want;
                drawn += want;
            } else {
                left = smallestRemaining(results);
                if (left <= 0) {
                    break;
                }
                want = left; // less than a batch is left: draw that
            }
            left = 0;
        }
        if (total <= paid) {
            return true;
        }
        exhausted = true;
        credit = Math.max(0, debtCap + left);
        return total <= paid + credit;
    }

    /**
     * Settles the decision to {@code actual}, the tokens the stream cost in the end, once: what it
     * paid beyond that is given back, what it ran on credit (or beyond) is taken as a debt
     * ({@link QuotaService#settle}, whose {@link Settlement#estimate()} here is all it paid). A
     * second call changes nothing and says so.
     *
     * @throws IllegalArgumentException if {@code actual} is negative
     */
    public synchronized Settlement finish(long actual) {
        finished = true;
        return service.settled(decision, runner.settle(decision.receipt(), actual, drawn));
    }

    /** The tokens the stream draws per store call: {@link Streams#batch} of its plan's smallest capacity. */
    public long batch() {
        return batch;
    }

    /**
     * The most tokens the stream may cost as things stand: what it paid plus the credit it was
     * given once the plan ran out; {@link Long#MAX_VALUE} for a decision that charged no plan.
     */
    public synchronized long covered() {
        return charging ? paid + credit : Long.MAX_VALUE;
    }

    /** The tokens paid so far: the estimate and every batch drawn. */
    public synchronized long paid() {
        return paid;
    }

    /** Whether every enforced take of a draw was taken: the draw was admitted (a shadow take never refuses it). */
    private boolean admitted(List<ConsumeResult> results) {
        List<Take> charged = decision.receipt().settleableTakes();
        for (int i = 0; i < results.size(); i++) {
            if (!charged.get(i).shadow() && !results.get(i).tokensTaken()) {
                return false;
            }
        }
        return true;
    }

    /** The fewest tokens any limit of the draw's enforced buckets holds: what the plan can still give. */
    private long smallestRemaining(List<ConsumeResult> results) {
        List<Take> charged = decision.receipt().settleableTakes();
        long smallest = Long.MAX_VALUE;
        for (int i = 0; i < results.size(); i++) {
            if (!charged.get(i).shadow()) {
                for (long remaining : results.get(i).remaining()) {
                    smallest = Math.min(smallest, remaining);
                }
            }
        }
        return smallest;
    }
}
