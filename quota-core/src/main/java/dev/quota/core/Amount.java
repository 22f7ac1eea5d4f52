package dev.quota.core;

import java.util.Objects;
import java.util.regex.Pattern;

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
     *                                  message names the field, for a 400 answer
     */
    public Amount {
        Objects.requireNonNull(limits, "limits");
        if (qualifier == null || !QUALIFIER.matcher(qualifier).matches()) {
            throw new IllegalArgumentException("amount qualifier must be 1 to 32 of [A-Za-z0-9_.-] but was "
                    + (qualifier == null ? "missing" : "\"" + qualifier + "\""));
        }
        if (value < 1) {
            throw new IllegalArgumentException("amount must be >= 1 but was " + value);
        }
    }
}
