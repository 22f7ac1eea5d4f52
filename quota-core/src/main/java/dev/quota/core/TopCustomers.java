package dev.quota.core;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * Who is being limited, as this instance saw it over the last minutes: the customers refused most
 * often and the customers that spent the most, from {@link QuotaAdmin#topCustomers()}.
 *
 * <p>Counted in bounded memory (a heavy-hitters sketch of {@value #COUNTERS} customers per minute,
 * whatever the number of callers), so a count may be too high by at most its
 * {@link Entry#overcount()}, never too low; a customer with more than 1 in {@value #COUNTERS} of a
 * minute's refusals (or spending) is always listed. Each instance counts the decisions it made
 * itself: behind a load balancer that spreads a customer's requests over three instances, each
 * sees about a third of them.
 *
 * <p>Refusals are decisions refused for a limit ({@link QuotaDecision.Outcome#REJECTED} and
 * {@link QuotaDecision.Outcome#EXCEEDS_LIMIT}, amount refusals included), one each; a 503 because
 * the store did not answer is not the customer's refusal. Spending is the plan tokens of admitted
 * requests: an export whose rule costs 10 counts 10; amount decisions on their own count nothing
 * (their unit is money, not requests).
 *
 * @param since         the start of the window: the start of the minute {@value #WINDOW_MINUTES}
 *                      minutes before the current one
 * @param until         when this was read
 * @param byRefusals    at most {@value #SHOWN} customers, most refused first
 * @param bySpending    at most {@value #SHOWN} customers, highest spending first
 */
public record TopCustomers(Instant since, Instant until, List<Entry> byRefusals, List<Entry> bySpending) {

    /** How far back the counts reach: the current minute and the 5 whole minutes before it. */
    public static final int WINDOW_MINUTES = 5;
    /** Customers counted per minute and list: 100. */
    public static final int COUNTERS = 100;
    /** Customers listed per ranking: 10. */
    public static final int SHOWN = 10;

    /** @throws NullPointerException if an argument is null */
    public TopCustomers {
        Objects.requireNonNull(since, "since");
        Objects.requireNonNull(until, "until");
        byRefusals = List.copyOf(byRefusals);
        bySpending = List.copyOf(bySpending);
    }

    /**
     * One customer's count in the window: refusals, or plan tokens spent.
     *
     * @param customer  the customer's id ({@code ip:203.0.113.7} for an anonymous address)
     * @param kind      the namespace of the id
     * @param count     the count, never below the true one
     * @param overcount how much {@code count} may exceed the true one; 0 when exact
     */
    public record Entry(String customer, Customer.Kind kind, long count, long overcount) {

        /** @throws IllegalArgumentException if a count is negative or the overcount exceeds the count */
        public Entry {
            Objects.requireNonNull(customer, "customer");
            Objects.requireNonNull(kind, "kind");
            if (count < 0 || overcount < 0 || overcount > count) {
                throw new IllegalArgumentException("count must be >= overcount >= 0 but was " + count + " and "
                        + overcount);
            }
        }

        /** The count the customer certainly reached: {@code count - overcount}. */
        public long atLeast() {
            return count - overcount;
        }
    }
}
