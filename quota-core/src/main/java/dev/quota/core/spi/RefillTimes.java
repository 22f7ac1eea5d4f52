package dev.quota.core.spi;

import dev.quota.core.Limit;
import dev.quota.core.Refill;
import java.math.BigInteger;
import java.time.Duration;

/**
 * How long a bucket takes to refill, computed from its limits alone, exactly (integer arithmetic,
 * rounded up): the one computation every store and the decision's headers share.
 */
public final class RefillTimes {

    private static final BigInteger MAX = BigInteger.valueOf(Long.MAX_VALUE);
    private static final BigInteger NANOS_PER_SECOND = BigInteger.valueOf(1_000_000_000L);

    private RefillTimes() {
    }

    /**
     * Nanoseconds an empty bucket of {@code spec} needs until every limit is full: the longest bound on
     * the time to full of any state of it. Capacity 100 refilled 10 per minute: 10 minutes; capacity
     * 100 refilled 30 every hour (interval): 4 hours. Saturates at {@link Long#MAX_VALUE}.
     *
     * @param spec the bucket's limits
     * @return the nanoseconds, at least 0
     */
    public static long fromEmptyNanos(BucketSpec spec) {
        long longest = 0;
        for (Limit limit : spec.limits()) {
            longest = Math.max(longest, nanosFor(limit, limit.capacity()));
        }
        return longest;
    }

    /**
     * Nanoseconds until {@code missing} tokens of {@code limit} are back: greedy refill rounded up to
     * the nanosecond (3 tokens of 10 per second: 300 ms), interval refill in whole periods (3 tokens
     * of 10 every minute: one minute). Saturates at {@link Long#MAX_VALUE}.
     *
     * @param limit   the limit
     * @param missing tokens missing; 0 or less needs no time
     * @return the nanoseconds, at least 0
     */
    public static long nanosFor(Limit limit, long missing) {
        if (missing <= 0) {
            return 0;
        }
        // in longs while the product fits (every limit a day or a year long with up to 10^5 tokens
        // does); BigInteger, exact and saturating, past that
        if (limit.refill() instanceof Refill.Greedy greedy) {
            long product = productOrNegative(missing, nanosOrNegative(greedy.period()));
            if (product >= 0) {
                return ceilDiv(product, greedy.tokens());
            }
        } else {
            Refill.Interval interval = (Refill.Interval) limit.refill();
            long product = productOrNegative(ceilDiv(missing, interval.tokens()), nanosOrNegative(interval.period()));
            if (product >= 0) {
                return product;
            }
        }
        BigInteger tokensMissing = BigInteger.valueOf(missing);
        if (limit.refill() instanceof Refill.Greedy greedy) {
            BigInteger tokens = BigInteger.valueOf(greedy.tokens());
            return saturate(ceilDiv(tokensMissing.multiply(nanos(greedy.period())), tokens));
        }
        Refill.Interval interval = (Refill.Interval) limit.refill();
        BigInteger periods = ceilDiv(tokensMissing, BigInteger.valueOf(interval.tokens()));
        return saturate(periods.multiply(nanos(interval.period())));
    }

    /**
     * {@code a + b}, or {@link Long#MAX_VALUE} where that overflows; both non-negative.
     *
     * @param a nanoseconds
     * @param b nanoseconds
     * @return the sum, saturated
     */
    public static long plus(long a, long b) {
        long sum = a + b;
        return sum < 0 ? Long.MAX_VALUE : sum;
    }

    /** {@code a * b} for non-negative {@code a}, or -1 if {@code b} is negative or the product overflows. */
    private static long productOrNegative(long a, long b) {
        if (b < 0 || Math.multiplyHigh(a, b) != 0) {
            return -1;
        }
        long product = a * b;
        return product >= 0 ? product : -1;
    }

    /** The duration in nanoseconds, or -1 where that is not a long. */
    private static long nanosOrNegative(Duration duration) {
        long seconds = duration.getSeconds();
        return seconds >= 0 && seconds < Long.MAX_VALUE / 1_000_000_000L - 1
                ? seconds * 1_000_000_000L + duration.getNano() : -1;
    }

    /** Rounded-up quotient of two positive longs. */
    private static long ceilDiv(long dividend, long divisor) {
        long quotient = dividend / divisor;
        return quotient * divisor == dividend ? quotient : quotient + 1;
    }

    private static BigInteger ceilDiv(BigInteger dividend, BigInteger divisor) {
        BigInteger[] qr = dividend.divideAndRemainder(divisor);
        return qr[1].signum() == 0 ? qr[0] : qr[0].add(BigInteger.ONE);
    }

    private static BigInteger nanos(Duration duration) {
        return BigInteger.valueOf(duration.getSeconds()).multiply(NANOS_PER_SECOND)
                .add(BigInteger.valueOf(duration.getNano()));
    }

    private static long saturate(BigInteger nanos) {
        return nanos.compareTo(MAX) >= 0 ? Long.MAX_VALUE : nanos.longValueExact();
    }
}
