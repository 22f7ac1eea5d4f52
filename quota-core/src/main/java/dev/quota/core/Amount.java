package dev.quota.core;

import java.util.Objects;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * An amount a request moves, checked against amount limits together with the request's own limits:
 * 125.00 EUR against the customer's daily {@code transfer-amount} is
 * {@code new Amount("transfer-amount", "EUR", 12_500)}.
 *
 * @param limits    the name of the config's amount limits ({@code amounts:} section)
 * @param qualifier what the amount is counted per, such as a currency code: 1 to 32 of
 *                  {@code [A-Za-z0-9_.-]}, case-sensitive (each qualifier has its own buckets, so
 *                  normalise it, e.g. upper-case currency codes, before passing it)
 * @param value     the amount in the limit's unit (for money: minor units), {@code >= 1}
 */
public record Amount(String limits, String qualifier, long value) {

    private static final Pattern QUALIFIER = Pattern.compile("[A-Za-z0-9_.-]{1,32}");

    /**
     * @throws IllegalArgumentException if the qualifier is malformed or the value is below 1; the
     *                                  message names the field and echoes the value (the first 40
     *                                  characters of a qualifier), for logs rather than for a client
     */
    public Amount {
        Objects.requireNonNull(limits, "limits");
        if (!isValidQualifier(qualifier)) {
            throw new IllegalArgumentException("amount qualifier must be 1 to 32 of [A-Za-z0-9_.-] but was "
                    + (qualifier == null ? "missing" : "\"" + (qualifier.length() <= 40 ? qualifier
                    : qualifier.substring(0, 40) + "...") + "\""));
        }
        if (value < 1) {
            throw new IllegalArgumentException("amount must be >= 1 but was " + value);
        }
    }

    /** Whether {@code qualifier} is 1 to 32 of {@code [A-Za-z0-9_.-]}: {@code EUR} is, {@code "E U R"} and null are not. */
    public static boolean isValidQualifier(@Nullable String qualifier) {
        return qualifier != null && QUALIFIER.matcher(qualifier).matches();
    }
}
