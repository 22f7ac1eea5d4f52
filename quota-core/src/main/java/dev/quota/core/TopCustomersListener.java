package dev.quota.core;

import java.time.Clock;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * Feeds every decision of a service into the two sketches behind {@link TopCustomers}: refusals
 * and plan tokens spent, each over {@value TopCustomers#WINDOW_MINUTES} minutes in 1-minute slots.
 * The first listener of every service; it counts, it never changes a decision.
 */
final class TopCustomersListener implements QuotaListener {

    private static final Duration SLOT = Duration.ofMinutes(1);
    private static final Duration WINDOW = Duration.ofMinutes(TopCustomers.WINDOW_MINUTES);

    private final Clock clock;
    private final HeavyHitters refusals;
    private final HeavyHitters spending;

    TopCustomersListener(Clock clock) {
        this.clock = clock;
        this.refusals = new HeavyHitters(clock, WINDOW, SLOT, TopCustomers.COUNTERS);
        this.spending = new HeavyHitters(clock, WINDOW, SLOT, TopCustomers.COUNTERS);
    }

    @Override
    public void onDecision(Customer customer, @Nullable String limits, QuotaDecision decision, Duration elapsed) {
        decided(customer, decision);
    }

    /** Counts {@code decision} for {@code customer}: what {@link #onDecision} does, told without the time it took. */
    void decided(Customer customer, QuotaDecision decision) {
        switch (decision.outcome()) {
            case REJECTED, EXCEEDS_LIMIT -> refusals.add(customer, 1);
            case ALLOWED, SHADOW_REJECTED -> {
                long planTokens = decision.receipt().planTokens(); // as DecisionCharge counted them
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
     * Counts what a settle charged after the fact as spending, as {@link #onDecision} counted the
     * estimate. A give-back is not taken off: a count stays never below the truth, and may be over it
     * by what was given back.
     */
    void settled(Customer customer, Settlement settlement) {
        if (settlement.outcome() == Settlement.Outcome.CHARGED && settlement.change() > 0) {
            spending.add(customer, settlement.change());
        }
    }

    /** The rankings now. */
    TopCustomers top() {
        return new TopCustomers(refusals.since(), clock.instant(), refusals.top(TopCustomers.SHOWN),
                spending.top(TopCustomers.SHOWN));
    }

    /** One customer's refusals in the window. */
    TopCustomers.Entry refusalsOf(Customer customer) {
        return refusals.of(customer);
    }
}
