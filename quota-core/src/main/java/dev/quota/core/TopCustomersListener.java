package dev.quota.core;

import java.time.Clock;
import java.time.Duration;
import java.util.function.Supplier;
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
    private final Supplier<QuotaConfig> config;
    private final HeavyHitters refusals;
    private final HeavyHitters spending;

    TopCustomersListener(Clock clock, Supplier<QuotaConfig> config) {
        this.clock = clock;
        this.config = config;
        this.refusals = new HeavyHitters(clock, WINDOW, SLOT, TopCustomers.COUNTERS);
        this.spending = new HeavyHitters(clock, WINDOW, SLOT, TopCustomers.COUNTERS);
    }

    @Override
    public void onDecision(Customer customer, @Nullable String limits, QuotaDecision decision, Duration elapsed) {
        switch (decision.outcome()) {
            case REJECTED, EXCEEDS_LIMIT -> refusals.add(customer, 1);
            case ALLOWED, SHADOW_REJECTED -> {
                if (isRequest(decision)) {
                    spending.add(customer, cost(limits));
                }
            }
            case UNENFORCED, UNAVAILABLE, BYPASSED -> {
                // counted nowhere (the store was down), not the customer's doing (503), or not limited
            }
        }
    }

    /** A request decision has plan limits; an amount decision on its own has amount limits only. */
    private static boolean isRequest(QuotaDecision decision) {
        for (LimitStatus status : decision.limits()) {
            if (status.advertised()) { // a plan, rule or failed-key limit: the requests of this caller
                return true;
            }
        }
        return false;
    }

    /** The plan tokens the request took: its rule's cost, 1 without a rule. */
    private long cost(@Nullable String limits) {
        if (limits == null) {
            return 1;
        }
        return config.get().rule(limits).map(Rule::cost).orElse(1L);
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
