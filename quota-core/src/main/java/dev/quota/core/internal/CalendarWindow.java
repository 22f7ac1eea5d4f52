package dev.quota.core.internal;

import dev.quota.core.Refill;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.time.temporal.TemporalAdjusters;

/**
 * The calendar window containing an instant: [start, end) in the limit's zone. A day in
 * Europe/Berlin is 23 hours on the last Sunday of March and 25 on the last Sunday of October;
 * a month is 28 to 31 days.
 *
 * @param start inclusive
 * @param end   exclusive
 */
public record CalendarWindow(Instant start, Instant end) {

    /** The window of {@code calendar} that contains {@code now}. */
    public static CalendarWindow containing(Refill.Calendar calendar, Instant now) {
        ZonedDateTime local = now.atZone(calendar.zone());
        ZonedDateTime start;
        ZonedDateTime end;
        ChronoUnit unit = calendar.unit();
        if (unit == ChronoUnit.HOURS) {
            start = local.truncatedTo(ChronoUnit.HOURS);
            end = start.plusHours(1);
        } else if (unit == ChronoUnit.DAYS) {
            start = local.toLocalDate().atStartOfDay(calendar.zone());
            end = local.toLocalDate().plusDays(1).atStartOfDay(calendar.zone());
        } else if (unit == ChronoUnit.WEEKS) {
            var monday = local.toLocalDate().with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY));
            start = monday.atStartOfDay(calendar.zone());
            end = monday.plusWeeks(1).atStartOfDay(calendar.zone());
        } else {
            var first = local.toLocalDate().withDayOfMonth(1);
            start = first.atStartOfDay(calendar.zone());
            end = first.plusMonths(1).atStartOfDay(calendar.zone());
        }
        return new CalendarWindow(start.toInstant(), end.toInstant());
    }

    /** The window's length. */
    public Duration length() {
        return Duration.between(start, end);
    }

    /** Time from {@code now} to the end of the window, never negative. */
    public Duration remaining(Instant now) {
        Duration left = Duration.between(now, end);
        return left.isNegative() ? Duration.ZERO : left;
    }

    /**
     * {@link #remaining} in nanoseconds, without making the {@code Duration}: a window is at most
     * a calendar year, far inside a long's 292 years of nanoseconds.
     */
    public long nanosLeft(Instant now) {
        long left = (end.getEpochSecond() - now.getEpochSecond()) * 1_000_000_000L + (end.getNano() - now.getNano());
        return Math.max(0, left);
    }

    /** The nominal length of a calendar unit, for headers: hour 3600 s, day 86400 s, week, month 31 days. */
    public static Duration nominal(ChronoUnit unit) {
        return unit == ChronoUnit.MONTHS ? Duration.ofDays(31) : unit.getDuration();
    }
}
