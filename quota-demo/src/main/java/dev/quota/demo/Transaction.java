package dev.quota.demo;

/**
 * One booked transaction of an account, as exported.
 *
 * @param id           unique within the demo
 * @param bookingDate  when it was booked, ISO-8601 ({@code 2025-01-03})
 * @param counterparty who paid or was paid
 * @param amountMinor  signed, in minor units: -1250 is a debit of 12.50
 * @param currency     the account's currency
 */
record Transaction(String id, String bookingDate, String counterparty, long amountMinor, String currency) {
}
