package dev.quota.jaxrs.internal;

import dev.quota.core.Limit;
import dev.quota.core.LimitStatus;
import dev.quota.core.QuotaDecision;
import dev.quota.core.Refill;
import dev.quota.core.internal.WholeSeconds;
import jakarta.ws.rs.core.MultivaluedMap;
import java.math.BigInteger;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The {@code RateLimit-Policy} and {@code RateLimit} headers of draft-ietf-httpapi-ratelimit-headers-10
 * and the older {@code X-RateLimit-*} trio. What does not change between decisions (a limit's
 * quoted name, its {@code RateLimit-Policy} item, its capacity) is built once per limit, and small
 * numbers once.
 *
 * <p>Plan {@code free} with burst 20 (refill 10 per second) after one request:
 * {@code RateLimit-Policy: "free-burst";q=20;w=2} and {@code RateLimit: "free-burst";r=19;t=1}.
 * Only the caller's own request limits are listed: amount limits never are, and neither are limits
 * every customer shares, whose remaining tokens tell of other customers' activity.
 */
public final class RateLimitHeaders {

    public static final String POLICY = "RateLimit-Policy";
    public static final String RATE_LIMIT = "RateLimit";
    static final String X_LIMIT = "X-RateLimit-Limit";
    static final String X_REMAINING = "X-RateLimit-Remaining";
    static final String X_RESET = "X-RateLimit-Reset";

    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    private static final BigInteger BIG_NANOS_PER_SECOND = BigInteger.valueOf(NANOS_PER_SECOND);
    /** The decimal text of 0 to 1023, each made when first needed. */
    private static final @Nullable String[] NUMBERS = new String[1024];

    private RateLimitHeaders() {
    }

    /** {@code "free-burst";q=20;w=2, "free-daily";q=1000;w=86400}, or null without request limits. */
    public static @Nullable String policy(List<LimitStatus> limits) {
        String first = null;
        StringBuilder more = null;
        for (int i = 0; i < limits.size(); i++) {
            LimitStatus status = limits.get(i);
            if (!status.advertised()) {
                continue;
            }
            String item = Items.of(status).policy;
            if (first == null) {
                first = item; // the usual case, one request limit: its item as it is
            } else {
                if (more == null) {
                    more = new StringBuilder(4 * first.length()).append(first);
                }
                more.append(", ").append(item);
            }
        }
        return more != null ? more.toString() : first;
    }

    /** {@code "free-burst";r=0;t=1, "free-daily";r=980;t=86400}, or null without request limits. */
    public static @Nullable String rateLimit(List<LimitStatus> limits) {
        String first = null;
        StringBuilder more = null;
        for (int i = 0; i < limits.size(); i++) {
            LimitStatus status = limits.get(i);
            if (!status.advertised()) {
                continue;
            }
            // the usual case, one request limit: its item in one string, without a builder's copy
            String item = Items.of(status).quoted + ";r=" + status.remaining() + ";t=" + status.resetSeconds();
            if (first == null) {
                first = item;
            } else {
                if (more == null) {
                    more = new StringBuilder(4 * first.length()).append(first);
                }
                more.append(", ").append(item);
            }
        }
        return more != null ? more.toString() : first;
    }

    /** Appends the headers of an admitted request: both drafts' views of the decision. */
    public static void addAllowed(MultivaluedMap<String, Object> headers, QuotaDecision decision) {
        String policy = policy(decision.limits());
        String rateLimit = rateLimit(decision.limits());
        if (policy == null || rateLimit == null) {
            return; // both null or neither: the same limits are advertised in each
        }
        set(headers, POLICY, policy);
        set(headers, RATE_LIMIT, rateLimit);
        LimitStatus tightest = decision.tightest();
        if (tightest != null) {
            set(headers, X_LIMIT, Items.of(tightest).capacity);
            set(headers, X_REMAINING, number(tightest.remaining()));
            set(headers, X_RESET, number(tightest.resetSeconds()));
        }
    }

    /**
     * {@code headers.putSingle(name, value)} in one map write: on Jersey, {@code putSingle} looks
     * the name up, then stores a new linked list under it, each a lower-cased copy of the name. The
     * list stays mutable, as {@code putSingle}'s, for whatever adds to the header later.
     */
    private static void set(MultivaluedMap<String, Object> headers, String name, Object value) {
        List<Object> values = new ArrayList<>(1);
        values.add(value);
        headers.put(name, values);
    }

    /** {@code value} in decimal; the small ones (what is left of a limit, seconds to its reset) made once. */
    static String number(long value) {
        if (value < 0 || value >= NUMBERS.length) {
            return Long.toString(value);
        }
        String text = NUMBERS[(int) value];
        if (text == null) {
            // racy by design, as the items: a lost write is made again, a string is safely published
            text = Long.toString(value);
            NUMBERS[(int) value] = text;
        }
        return text;
    }

    /**
     * The window a client should assume, in whole seconds rounded up. Greedy refill: the time to
     * refill from empty (capacity 20, 10 per second: 2). Interval refill: whole periods until full
     * (capacity 100, 100 per 15 min: 900). Calendar: the unit's nominal length (day 86400, month 31 days).
     */
    public static long windowSeconds(Limit limit) {
        Refill refill = limit.refill();
        if (refill instanceof Refill.Greedy greedy) {
            return ceilSeconds(limit.capacity(), nanos(greedy.period()), greedy.tokens());
        }
        if (refill instanceof Refill.Interval interval) {
            long periods = ceilDiv(limit.capacity(), interval.tokens());
            return ceilSeconds(periods, nanos(interval.period()), 1);
        }
        ChronoUnit unit = ((Refill.Calendar) refill).unit();
        if (unit == ChronoUnit.HOURS) {
            return 3_600;
        }
        if (unit == ChronoUnit.DAYS) {
            return 86_400;
        }
        return unit == ChronoUnit.WEEKS ? 604_800 : 2_678_400;
    }

    /** The {@code Retry-After} value: whole seconds rounded up, at least 1 (0 would invite a hot loop). */
    public static long retryAfterSeconds(Duration retryAfter) {
        return Math.max(1, WholeSeconds.ceil(retryAfter));
    }

    /** {@code "free-burst"}: a structured-field string, quotes and backslashes escaped. */
    public static String quoted(String policy) {
        StringBuilder sb = new StringBuilder(policy.length() + 2).append('"');
        for (int i = 0; i < policy.length(); i++) {
            char c = policy.charAt(i);
            if (c == '"' || c == '\\') {
                sb.append('\\');
            }
            sb.append(c);
        }
        return sb.append('"').toString();
    }

    /**
     * The parts of a limit's header items that do not change between decisions: its quoted policy
     * name and its {@code RateLimit-Policy} item. Kept per policy name and limit, by identity (the
     * service hands out the same ones until the config is reloaded), in a small table where a
     * collision costs only their recomputation.
     */
    private static final class Items {
        private static final int SLOTS = 64;
        /** Racy by design: each entry is immutable (final fields), and a lost write is computed again. */
        private static final Items[] TABLE = new Items[SLOTS];

        final String policyName;
        final Limit limit;
        final String quoted;
        final String policy;
        /** The capacity in decimal: {@code X-RateLimit-Limit}. */
        final String capacity;

        private Items(String policyName, Limit limit) {
            this.policyName = policyName;
            this.limit = limit;
            this.quoted = quoted(policyName);
            this.capacity = Long.toString(limit.capacity());
            this.policy = quoted + ";q=" + limit.capacity() + ";w=" + windowSeconds(limit);
        }

        // a table by instance (the slot is the name's identity hash): equal values elsewhere only miss,
        // and their items are made again, the same
        @SuppressWarnings("ReferenceEquality")
        private static boolean sameInstances(Items items, String name, Limit limit) {
            return items.policyName == name && items.limit == limit;
        }

        static Items of(LimitStatus status) {
            String name = status.policy();
            Limit limit = status.limit();
            int slot = System.identityHashCode(name) & (SLOTS - 1);
            Items items = TABLE[slot];
            if (items == null || !sameInstances(items, name, limit)) {
                items = new Items(name, limit);
                TABLE[slot] = items;
            }
            return items;
        }
    }

    /** ceil(count * nanos / (divisor * 10^9)) for positive arguments, exact even past long range. */
    private static long ceilSeconds(long count, long nanos, long divisor) {
        long high = Math.multiplyHigh(count, nanos);
        long product = count * nanos;
        if (high == 0 && product >= 0) {
            return ceilDiv(ceilDiv(product, divisor), NANOS_PER_SECOND);
        }
        BigInteger[] qr = BigInteger.valueOf(count).multiply(BigInteger.valueOf(nanos))
                .divideAndRemainder(BigInteger.valueOf(divisor).multiply(BIG_NANOS_PER_SECOND));
        BigInteger result = qr[1].signum() == 0 ? qr[0] : qr[0].add(BigInteger.ONE);
        return result.bitLength() < Long.SIZE ? result.longValue() : Long.MAX_VALUE;
    }

    private static long nanos(Duration duration) {
        try {
            return duration.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE; // a period beyond 292 years: effectively never
        }
    }

    private static long ceilDiv(long dividend, long divisor) {
        long quotient = dividend / divisor;
        return dividend % divisor == 0 ? quotient : quotient + 1;
    }
}
