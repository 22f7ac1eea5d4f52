package dev.quota.core;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * One instance's part of the limits while the store is down ({@link FailurePolicy#LOCAL}): the
 * live instance count and this instance's place among them. {@link #WHOLE} on the shared store.
 *
 * <p>A capacity is divided without rounding up, so the instances never hold more than the limit
 * together: each gets the quotient, and the remainder goes one token each to the first instances by
 * rank. Capacity 10 over 16 instances: ranks 0 to 9 hold one token, ranks 10 to 15 none, and an
 * instance without a token refuses with 503 while the outage lasts. With the rank unknown (-1),
 * every instance gets the quotient only. Refill is divided exactly, as a rate: 40 tokens a minute
 * over 4 instances is 10 a minute each, 1 a minute over 4 is 1 every 4 minutes each.
 *
 * @param instances the live instances, {@code >= 1}
 * @param rank      this instance's place among them, 0-based; -1 when unknown
 */
record LocalShare(int instances, int rank) {

    /** The shared store's view: one instance holding the whole limit. */
    static final LocalShare WHOLE = new LocalShare(1, 0);

    /**
     * This instance's part of {@code limit}, already scaled for the customer; null when it holds no
     * token of it.
     */
    @Nullable Limit of(Limit limit) {
        if (instances == 1) {
            return limit;
        }
        long capacity = part(limit.capacity());
        if (capacity == 0) {
            return null;
        }
        Refill refill = limit.refill();
        if (refill instanceof Refill.Greedy g) {
            long gcd = gcd(g.tokens(), instances);
            refill = Refill.greedy(g.tokens() / gcd, times(g.period(), instances / gcd));
        } else if (refill instanceof Refill.Interval i) {
            long gcd = gcd(i.tokens(), instances);
            refill = Refill.interval(i.tokens() / gcd, times(i.period(), instances / gcd));
        }
        return new Limit(limit.name(), capacity, refill);
    }

    /** The quotient, plus one token of the remainder for the first instances by rank. */
    long part(long total) {
        long rest = total % instances;
        return total / instances + (rank >= 0 && rank < rest ? 1 : 0);
    }

    private static Duration times(Duration period, long factor) {
        return factor == 1 ? period : period.multipliedBy(factor);
    }

    private static long gcd(long a, long b) {
        return b == 0 ? a : gcd(b, a % b);
    }
}
