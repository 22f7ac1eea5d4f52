package dev.quota.core.internal;

import dev.quota.core.FailurePolicy;
import dev.quota.core.Limit;
import dev.quota.core.LimitStatus;
import dev.quota.core.Mode;
import dev.quota.core.Refill;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ConsumeResult;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One bucket a decision touches: where it is stored, what it enforces, how many tokens the
 * request takes from it, and how to report its limits.
 *
 * @param key      storage key
 * @param spec     the limits as the store sees them (calendar windows resolved to intervals)
 * @param declared the limits as configured (calendar ones still calendar), same order as spec
 * @param policies the policy name of each limit, same order
 * @param window   the calendar window when this bucket is one, else null
 * @param tokens   tokens this request takes
 * @param requests whether the limits count requests (false for amounts)
 * @param onFailure what to do when the store cannot answer
 * @param mode     whether this bucket's lack of tokens rejects the request or only shadow-rejects it
 */
public record BucketUse(BucketKey key, BucketSpec spec, List<Limit> declared, List<String> policies,
                        @Nullable CalendarWindow window, long tokens, boolean requests, FailurePolicy onFailure,
                        Mode mode) {

    /**
     * Appends the buckets for {@code limits}: every greedy or interval limit together in one bucket
     * at {@code baseKey}, then each calendar limit in a bucket of its own for the current window.
     */
    public static void plan(List<BucketUse> out, String baseKey, String policyPrefix, List<Limit> limits,
                            double multiplier, long tokens, boolean requests, long version, Instant now,
                            FailurePolicy onFailure, Mode mode) {
        List<Limit> rolling = new ArrayList<>(limits.size());
        List<String> rollingPolicies = new ArrayList<>(limits.size());
        List<BucketUse> calendars = new ArrayList<>(2);
        for (Limit configured : limits) {
            Limit limit = configured.scaled(multiplier);
            String policy = policyPrefix + "-" + limit.name();
            if (limit.refill() instanceof Refill.Calendar calendar) {
                CalendarWindow window = CalendarWindow.containing(calendar, now);
                Limit asInterval = new Limit(limit.name(), limit.capacity(),
                        Refill.interval(limit.capacity(), window.length()));
                calendars.add(new BucketUse(Keys.window(baseKey, limit.name(), window.start().getEpochSecond()),
                        new BucketSpec(List.of(asInterval), version), List.of(limit), List.of(policy), window,
                        tokens, requests, onFailure, mode));
            } else {
                rolling.add(limit);
                rollingPolicies.add(policy);
            }
        }
        if (!rolling.isEmpty()) {
            out.add(new BucketUse(new BucketKey(baseKey), new BucketSpec(rolling, version), rolling,
                    rollingPolicies, null, tokens, requests, onFailure, mode));
        }
        // rolling limits first (usually the burst), so headers list limits shortest window first
        out.addAll(calendars);
    }

    /** The status of each limit of this bucket after {@code result}. */
    public void statuses(ConsumeResult result, Instant now, List<LimitStatus> out) {
        for (int i = 0; i < declared.size(); i++) {
            Limit limit = declared.get(i);
            long remaining = result.remaining()[i];
            boolean short_ = !result.consumed() && remaining < tokens;
            Duration reset;
            Duration retry;
            if (window != null) {
                Duration left = window.remaining(now);
                reset = remaining < limit.capacity() ? left : Duration.ZERO;
                retry = short_ ? left : Duration.ZERO;
            } else {
                Duration toFull = Duration.ofNanos(result.nanosToFull());
                reset = min(refillTime(limit, limit.capacity() - remaining), toFull);
                retry = short_ ? min(refillTime(limit, tokens - remaining), Duration.ofNanos(result.nanosToWait()))
                        : Duration.ZERO;
                if (short_ && retry.isZero()) {
                    retry = Duration.ofNanos(Math.max(1, result.nanosToWait()));
                }
            }
            out.add(new LimitStatus(policies.get(i), limit, remaining, reset, retry, requests));
        }
    }

    /**
     * An upper bound of the time until {@code missing} tokens are back: exact for greedy refill,
     * whole periods for interval refill.
     */
    static Duration refillTime(Limit limit, long missing) {
        if (missing <= 0) {
            return Duration.ZERO;
        }
        if (limit.refill() instanceof Refill.Greedy greedy) {
            long nanos = greedy.period().toNanos();
            // ceil(missing * period / tokens) without overflow for realistic sizes
            double exact = (double) missing * nanos / greedy.tokens();
            return Duration.ofNanos((long) Math.ceil(exact));
        }
        Refill.Interval interval = (Refill.Interval) limit.refill();
        long periods = (missing + interval.tokens() - 1) / interval.tokens();
        return interval.period().multipliedBy(periods);
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }
}
