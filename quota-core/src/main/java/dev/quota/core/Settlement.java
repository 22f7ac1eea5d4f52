package dev.quota.core;

/**
 * What {@link QuotaService#settle} did with a decision's estimate once the actual cost was known.
 *
 * <p>An export charged its estimate of 10 plan tokens that wrote 37 rows is settled
 * {@link Outcome#CHARGED}: 27 more tokens are taken from every plan bucket the decision charged,
 * whatever they hold; a bucket that held fewer than 27 is left in debt (below zero), and the
 * customer's next requests are refused until the refill has paid it. One that wrote 4 rows is
 * {@link Outcome#GIVEN_BACK}: 6 tokens go back. The rule's per-customer and shared limits count
 * requests and the amount limits count money, so a settle leaves them as the decision charged them.
 *
 * @param outcome  what happened
 * @param estimate the plan tokens the decision was charged (0 when it took none); for a response
 *                 charged while it streamed ({@link RunningCost}), its estimate and every batch it drew
 * @param actual   the cost the settle was asked for
 * @param change   tokens taken after the fact when positive, given back when negative; 0 when the
 *                 settle changed nothing
 */
public record Settlement(Outcome outcome, long estimate, long actual, long change) {

    /** What a settle did. */
    public enum Outcome {
        /** The actual cost was more than the estimate: the difference was taken, a debt where it was lacking. */
        CHARGED,
        /** The actual cost was less than the estimate: the difference was given back. */
        GIVEN_BACK,
        /** The actual cost was the estimate: nothing to change. */
        EXACT,
        /** The decision was settled before: this settle changed nothing. */
        ALREADY_SETTLED,
        /** The decision was refunded before: this settle changed nothing. */
        REFUNDED,
        /**
         * The decision charged its plan no estimate (refused, bypassed, unenforced, or a plan in
         * shadow mode that lacked the tokens): nothing to settle.
         */
        NOTHING_TO_SETTLE,
        /** The store failed: the difference was not applied (logged, and told to the listeners). */
        FAILED
    }

    /** Whether the settle applied a change: {@link Outcome#CHARGED}, {@link Outcome#GIVEN_BACK} or {@link Outcome#EXACT}. */
    public boolean applied() {
        return outcome == Outcome.CHARGED || outcome == Outcome.GIVEN_BACK || outcome == Outcome.EXACT;
    }
}
