package dev.quota.demo;

/**
 * A transfer the API accepted.
 *
 * @param id        {@code tr_} and 20 hex digits
 * @param customer  who asked for it
 * @param from      the debited account
 * @param to        the credited account
 * @param amount    two decimals, e.g. {@code "125.00"}
 * @param currency  EUR, GBP or USD
 * @param status    always {@code accepted}: the demo moves no money
 * @param createdAt ISO-8601 instant
 */
record Transfer(String id, String customer, String from, String to, String amount, String currency, String status,
                String createdAt) {
}
