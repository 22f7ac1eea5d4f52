package dev.quota.demo;

/**
 * A bank account of the demo.
 *
 * @param id           e.g. {@code ACC-1001}
 * @param owner        the customer who holds it
 * @param balanceMinor the balance in minor units: 1234567 is 12,345.67
 * @param currency     ISO 4217 code
 */
record Account(String id, String owner, long balanceMinor, String currency) {
}
