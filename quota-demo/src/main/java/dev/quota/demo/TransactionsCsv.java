package dev.quota.demo;

import java.util.List;

/** Transactions as RFC 4180 CSV: a header line, CRLF line ends, fields quoted when they need it. */
final class TransactionsCsv {

    private TransactionsCsv() {
    }

    /** {@code id,bookingDate,counterparty,amount,currency}; amounts with two decimals ({@code -12.50}). */
    static String write(List<Transaction> transactions) {
        StringBuilder out = new StringBuilder(64 * (transactions.size() + 1));
        out.append("id,bookingDate,counterparty,amount,currency\r\n");
        for (Transaction t : transactions) {
            out.append(field(t.id())).append(',')
                    .append(t.bookingDate()).append(',')
                    .append(field(t.counterparty())).append(',')
                    .append(Money.format(t.amountMinor())).append(',')
                    .append(t.currency()).append("\r\n");
        }
        return out.toString();
    }

    private static String field(String value) {
        boolean quote = value.indexOf(',') >= 0 || value.indexOf('"') >= 0 || value.indexOf('\n') >= 0
                || value.indexOf('\r') >= 0;
        return quote ? '"' + value.replace("\"", "\"\"") + '"' : value;
    }
}
