package dev.quota.demo;

import java.math.BigDecimal;

/** Amounts in minor units (cents, pence) of the demo's currencies, which all have two decimals. */
final class Money {

    private Money() {
    }

    /** {@code 12550} as {@code "125.50"}, {@code -5} as {@code "-0.05"}. */
    static String format(long minor) {
        return BigDecimal.valueOf(minor, 2).toPlainString();
    }
}
