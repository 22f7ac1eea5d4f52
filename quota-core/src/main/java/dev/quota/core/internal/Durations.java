package dev.quota.core.internal;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The one duration grammar of the config file and the server settings: a whole number and a unit,
 * {@code 500ms}, {@code 1s}, {@code 15m}, {@code 2h} or {@code 7d}, greater than zero; surrounding
 * blanks are ignored. Nothing else: no fractions, no blanks inside, no ISO-8601.
 */
public final class Durations {

    /** The units, as error messages list them. */
    public static final String UNITS = "ms, s, m, h, d";

    private static final Pattern PERIOD = Pattern.compile("(\\d{1,18})([A-Za-z]*)");

    private Durations() {
    }

    /**
     * {@code text} as a duration.
     *
     * @param quote how the caller's messages show a value (quoted, cut short)
     * @throws IllegalArgumentException whose message is the reason, echoing the value through
     *                                  {@code quote}: {@code unknown unit "mins" (use ms, s, m, h, d)}
     */
    public static Duration parse(String text, UnaryOperator<String> quote) {
        Matcher matcher = PERIOD.matcher(text.trim());
        if (!matcher.matches()) {
            throw new IllegalArgumentException("must be a number and a unit like 15m (units " + UNITS + ") but was "
                    + quote.apply(text));
        }
        long amount = Long.parseLong(matcher.group(1));
        String unit = matcher.group(2);
        ChronoUnit chronoUnit = unit(unit);
        if (chronoUnit == null) {
            throw new IllegalArgumentException(unit.isEmpty()
                    ? "missing unit in " + quote.apply(matcher.group()) + " (use " + UNITS + ")"
                    : "unknown unit " + quote.apply(unit) + " (use " + UNITS + ")");
        }
        if (amount == 0) {
            throw new IllegalArgumentException("must be > 0 but was " + quote.apply(matcher.group()));
        }
        try {
            return Duration.of(amount, chronoUnit);
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("is too long: " + quote.apply(matcher.group()), e);
        }
    }

    private static @Nullable ChronoUnit unit(String unit) {
        return switch (unit) {
            case "ms" -> ChronoUnit.MILLIS;
            case "s" -> ChronoUnit.SECONDS;
            case "m" -> ChronoUnit.MINUTES;
            case "h" -> ChronoUnit.HOURS;
            case "d" -> ChronoUnit.DAYS;
            default -> null;
        };
    }
}
