package dev.quota.core.internal.top;

import dev.quota.core.Customer;
import dev.quota.core.QuotaDecision;
import dev.quota.core.Settlement;
import dev.quota.core.TopCustomers;
import java.time.Clock;
import java.time.Duration;

/**
 * The two sketches behind {@link TopCustomers}, fed every decision of a service: refusals and plan
 * tokens spent, each over {@value TopCustomers#WINDOW_MINUTES} minutes in 1-minute slots. The
 * service tells it each decision before its listeners; it counts, it never changes a decision.
 */
public final class TopCustomerCounts {

    private static final Duration SLOT = Duration.ofMinutes(1);
    private static final Duration WINDOW = Duration.ofMinutes(TopCustomers.WINDOW_MINUTES);

    private final Clock clock;
    private final HeavyHitters refusals;
    private final HeavyHitters spending;

    /** Counts in windows that end at {@code clock}'s now. */
    public TopCustomerCounts(Clock clock) {
        this.clock = clock;
        this.refusals = new HeavyHitters(clock, WINDOW, SLOT, TopCustomers.COUNTERS);
        this.spending = new HeavyHitters(clock, WINDOW, SLOT, TopCustomers.COUNTERS);
    }

    /**
     * Counts a decision of {@code outcome} for {@code customer}: a refusal, or the tokens it took
     * from the customer's plan ({@code planTokens}, as the decision's receipt holds them) as spending.
     */
    public void decided(Customer customer, QuotaDecision.Outcome outcome, long planTokens) {
        switch (outcome) {
            case REJECTED, EXCEEDS_LIMIT -> refusals.add(customer, 1);
            case ALLOWED, SHADOW_REJECTED -> {
                if (planTokens > 0) {
                    spending.add(customer, planTokens);
                }
            }
            case UNENFORCED, UNAVAILABLE, BYPASSED -> {
                // counted nowhere (the store was down), not the customer's doing (503), or not limited
            }
        }
    }

    /**
     * Counts what a settle charged after the fact as spending, as {@link #decided} counted the
     * estimate. A give-back is not taken off: a count stays never below the truth, and may be over it
     * by what was given back.
     */
    public void settled(Customer customer, Settlement settlement) {
        if (settlement.outcome() == Settlement.Outcome.CHARGED && settlement.change() > 0) {
            spending.add(customer, settlement.change());
        }
    }

    /** The rankings now. */
    public TopCustomers top() {
        return new TopCustomers(refusals.since(), clock.instant(), refusals.top(TopCustomers.SHOWN),
                spending.top(TopCustomers.SHOWN));
    }

    /** One customer's refusals in the window. */
    public TopCustomers.Entry refusalsOf(Customer customer) {
        return refusals.of(customer);
    }
}
