package dev.quota.jcache;

import dev.quota.core.Limit;
import dev.quota.core.Refill;
import dev.quota.core.spi.BucketSpec;
import java.math.BigInteger;
import java.time.Duration;

/** How long a bucket takes to refill, computed from its limits alone. */
final class RefillTimes {

    private static final BigInteger MAX = BigInteger.valueOf(Long.MAX_VALUE);

    private RefillTimes() {
    }

    /**
     * Nanoseconds an empty bucket of {@code spec} needs until every limit is full: the longest bound on
     * the time to full of any state of it. Capacity 100 refilled 10 per minute: 10 minutes; capacity
     * 100 refilled 30 every hour (interval): 4 hours. Saturates at {@link Long#MAX_VALUE}.
     */
    static long fromEmptyNanos(BucketSpec spec) {
        long longest = 0;
        for (Limit limit : spec.limits()) {
            longest = Math.max(longest, fromEmptyNanos(limit));
        }
        return longest;
    }

    private static long fromEmptyNanos(Limit limit) {
        BigInteger capacity = BigInteger.valueOf(limit.capacity());
        if (limit.refill() instanceof Refill.Greedy greedy) {
            BigInteger tokens = BigInteger.valueOf(greedy.tokens());
            BigInteger[] qr = capacity.multiply(nanos(greedy.period())).divideAndRemainder(tokens);
            return saturate(qr[1].signum() == 0 ? qr[0] : qr[0].add(BigInteger.ONE));
        }
        Refill.Interval interval = (Refill.Interval) limit.refill();
        BigInteger tokens = BigInteger.valueOf(interval.tokens());
        BigInteger[] qr = capacity.divideAndRemainder(tokens);
        BigInteger periods = qr[1].signum() == 0 ? qr[0] : qr[0].add(BigInteger.ONE);
        return saturate(periods.multiply(nanos(interval.period())));
    }

    private static BigInteger nanos(Duration duration) {
        return BigInteger.valueOf(duration.getSeconds()).multiply(BigInteger.valueOf(1_000_000_000L))
                .add(BigInteger.valueOf(duration.getNano()));
    }

    private static long saturate(BigInteger nanos) {
        return nanos.compareTo(MAX) >= 0 ? Long.MAX_VALUE : nanos.longValueExact();
    }

    /** {@code a + b}, or {@link Long#MAX_VALUE} where that overflows; both non-negative. */
    static long plus(long a, long b) {
        long sum = a + b;
        return sum < 0 ? Long.MAX_VALUE : sum;
    }
}
