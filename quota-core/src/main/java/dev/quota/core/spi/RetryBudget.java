package dev.quota.core.spi;

import dev.quota.core.QuotaStoreException;
import java.util.function.Supplier;

/**
 * How many compare-and-swap races one change may lose before it fails: the one budget every
 * compare-and-swap store (Redis, JCache) applies. Counted in lost races, not time: each lost race
 * means another change was written, so contention makes progress, and time blocked in the store
 * never counts. A change that fails anyway is refused with 503, never admitted by the failure
 * policy.
 */
public final class RetryBudget {

    /** The default budget: 1,000 lost races. */
    public static final int DEFAULT_LOST_RACES = 1_000;

    private RetryBudget() {
    }

    /**
     * {@code lostRaces}, checked as a budget.
     *
     * @param lostRaces the budget asked for
     * @return {@code lostRaces}
     * @throws IllegalArgumentException if {@code lostRaces} is less than 1
     */
    public static int require(int lostRaces) {
        if (lostRaces < 1) {
            throw new IllegalArgumentException("retryBudget must be >= 1 lost races but was " + lostRaces);
        }
        return lostRaces;
    }

    /**
     * Fails a change that has lost {@code lostRaces} races when that is past {@code budget}.
     *
     * @param lostRaces races lost so far
     * @param budget    the races it may lose
     * @param what      what was changed, for the message: {@code bucket k in cache 'quota'}
     * @throws QuotaStoreException past the budget
     */
    public static void check(int lostRaces, int budget, String what) {
        if (lostRaces > budget) {
            throw exceeded(lostRaces, budget, what);
        }
    }

    /**
     * {@link #check(int, int, String)} with the message's subject made only when the check fails: a
     * store that checks every decision builds no string for it.
     *
     * @param lostRaces races lost so far
     * @param budget    the races it may lose
     * @param what      makes what was changed, for the message: {@code redis keys [k]}
     * @throws QuotaStoreException past the budget
     */
    public static void check(int lostRaces, int budget, Supplier<String> what) {
        if (lostRaces > budget) {
            throw exceeded(lostRaces, budget, what.get());
        }
    }

    private static QuotaStoreException exceeded(int lostRaces, int budget, String what) {
        return new QuotaStoreException(what + ": lost " + lostRaces + " compare-and-swap races, past the retry"
                + " budget of " + budget + " lost races: written elsewhere all the time");
    }
}
