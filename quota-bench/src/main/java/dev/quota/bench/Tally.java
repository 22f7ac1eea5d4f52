package dev.quota.bench;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Requests and admissions per customer during one run, to check exactness: no customer may be
 * admitted more than a full bucket plus what refilled while the run lasted.
 */
public final class Tally {

    private final AtomicLongArray requests;
    private final AtomicLongArray admitted;

    /** Counters for customers {@code 0 .. customers-1}. */
    public Tally(int customers) {
        this.requests = new AtomicLongArray(customers);
        this.admitted = new AtomicLongArray(customers);
    }

    /** Counts one answered request of {@code customer}. */
    public void count(int customer, Outcome outcome) {
        requests.incrementAndGet(customer);
        if (outcome == Outcome.ADMITTED) {
            admitted.incrementAndGet(customer);
        }
    }

    /** Requests of one customer so far. */
    public long requests(int customer) {
        return requests.get(customer);
    }

    /** Admissions of one customer so far. */
    public long admitted(int customer) {
        return admitted.get(customer);
    }

    /**
     * Admissions against what the limit allows over {@code elapsedNanos}, for customers
     * {@code from .. to-1}.
     */
    public Exactness exactness(LimitSpec limit, long elapsedNanos, int from, int to) {
        long allowedCap = limit.allowedOver(elapsedNanos);
        long totalAdmitted = 0;
        long totalAllowed = 0;
        int over = 0;
        long worstExcess = 0;
        for (int c = from; c < to; c++) {
            long a = admitted.get(c);
            long allowed = Math.min(requests.get(c), allowedCap);
            totalAdmitted += a;
            totalAllowed += allowed;
            if (a > allowed) {
                over++;
                worstExcess = Math.max(worstExcess, a - allowed);
            }
        }
        return new Exactness(totalAdmitted, totalAllowed, over, worstExcess);
    }

    /**
     * @param admitted        admissions counted
     * @param allowed         the most the limits allow: per customer, the smaller of its requests and
     *                        a full bucket plus the refill over the run, summed
     * @param customersOver   customers admitted more than their limit allows (must be 0)
     * @param worstExcess     the largest excess of one customer
     */
    public record Exactness(long admitted, long allowed, int customersOver, long worstExcess) {

        /** Whether no customer got more than its limit allows. */
        public boolean exact() {
            return customersOver == 0;
        }

        /** This and {@code other} together (different customers, or different rounds). */
        public Exactness plus(Exactness other) {
            return new Exactness(admitted + other.admitted, allowed + other.allowed,
                    customersOver + other.customersOver, Math.max(worstExcess, other.worstExcess));
        }
    }
}
