package dev.quota.core;

import java.time.Duration;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.util.Objects;

/**
 * How a limit gets its tokens back.
 *
 * <ul>
 *   <li>{@link Greedy}: tokens drip back continuously. 10 tokens per second returns one token
 *       every 100 ms.
 *   <li>{@link Interval}: a fixed window that starts at the customer's first request. 100 tokens
 *       per 15 minutes come back all at once, 15 minutes after the window opened.
 *   <li>{@link Calendar}: a window aligned to the calendar in a time zone. A daily window in
 *       Europe/Berlin resets at local midnight, also on the 23- and 25-hour days of a
 *       daylight-saving change; a monthly window resets on the first of the month.
 * </ul>
 */
public sealed interface Refill {

    /** Tokens returned continuously: {@code tokens} per {@code period}. */
    static Refill greedy(long tokens, Duration period) {
        return new Greedy(tokens, period);
    }

    /** All {@code tokens} returned at once at the end of each {@code period}. */
    static Refill interval(long tokens, Duration period) {
        return new Interval(tokens, period);
    }

    /** The whole capacity returned at each calendar boundary of {@code unit} in {@code zone}. */
    static Refill calendar(ChronoUnit unit, ZoneId zone) {
        return new Calendar(unit, zone);
    }

    /** Continuous refill. */
    record Greedy(long tokens, Duration period) implements Refill {
        /** @throws IllegalArgumentException if {@code tokens < 1} or period is not positive */
        public Greedy {
            requirePositive(tokens, period);
        }
    }

    /** Fixed-window refill: everything at once at the end of the period. */
    record Interval(long tokens, Duration period) implements Refill {
        /** @throws IllegalArgumentException if {@code tokens < 1} or period is not positive */
        public Interval {
            requirePositive(tokens, period);
        }
    }

    /** Calendar-aligned window: hour, day, week (starting Monday) or month, in a time zone. */
    record Calendar(ChronoUnit unit, ZoneId zone) implements Refill {
        /** @throws IllegalArgumentException if unit is not HOURS, DAYS, WEEKS or MONTHS */
        public Calendar {
            Objects.requireNonNull(unit, "unit");
            Objects.requireNonNull(zone, "zone");
            if (unit != ChronoUnit.HOURS && unit != ChronoUnit.DAYS
                    && unit != ChronoUnit.WEEKS && unit != ChronoUnit.MONTHS) {
                throw new IllegalArgumentException(
                        "calendar unit must be HOURS, DAYS, WEEKS or MONTHS but was " + unit);
            }
        }
    }

    private static void requirePositive(long tokens, Duration period) {
        if (tokens < 1) {
            throw new IllegalArgumentException("refill tokens must be >= 1 but was " + tokens);
        }
        Objects.requireNonNull(period, "period");
        if (period.isNegative() || period.isZero()) {
            throw new IllegalArgumentException("refill period must be positive but was " + period);
        }
    }
}
