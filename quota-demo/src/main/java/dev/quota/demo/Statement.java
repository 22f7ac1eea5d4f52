package dev.quota.demo;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Random;
import java.util.function.LongConsumer;
import org.jspecify.annotations.Nullable;

/**
 * An account statement: one CSV row per calendar day from {@code from} to {@code to}, each with the
 * day's closing balance, made up the same way on every instance. Its row count is known only once
 * it has been written, which is what the demo bills it by.
 *
 * @param account the account
 * @param from    the first day
 * @param to      the last day; {@link #MAX_DAYS} days at most in all
 */
record Statement(Account account, LocalDate from, LocalDate to) {

    /** The most days one statement covers: 366. */
    static final int MAX_DAYS = 366;

    /** The statement of {@code from}..{@code to} (ISO dates), or null with the reasons added to {@code errors}. */
    static @Nullable Statement of(Account account, @Nullable String from, @Nullable String to,
                                  List<Problem.FieldError> errors) {
        LocalDate first = date("from", from, errors);
        LocalDate last = date("to", to, errors);
        if (first != null && last != null) {
            long days = ChronoUnit.DAYS.between(first, last) + 1;
            if (days < 1) {
                errors.add(new Problem.FieldError("to", "must not be before from"));
            } else if (days > MAX_DAYS) {
                errors.add(new Problem.FieldError("to", "a statement covers at most " + MAX_DAYS + " days"));
            }
        }
        return errors.isEmpty() && first != null && last != null ? new Statement(account, first, last) : null;
    }

    /**
     * Writes the header line, then one row per day, telling {@code rowWritten} after each row has
     * been handed to {@code out}: a client that goes away mid-way has been sent the rows counted.
     */
    void write(OutputStream out, LongConsumer rowWritten) throws IOException {
        out.write("date,closingBalance,currency\r\n".getBytes(StandardCharsets.US_ASCII));
        Random random = new Random(account.id().hashCode() * 31L + from.toEpochDay());
        long balance = account.balanceMinor();
        for (LocalDate day = from; !day.isAfter(to); day = day.plusDays(1)) {
            balance += (random.nextInt(2) == 0 ? -1 : 1) * random.nextInt(50_000);
            String row = day + "," + Money.format(balance) + "," + account.currency() + "\r\n";
            out.write(row.getBytes(StandardCharsets.US_ASCII));
            rowWritten.accept(1);
        }
    }

    private static @Nullable LocalDate date(String field, @Nullable String value, List<Problem.FieldError> errors) {
        if (value == null || value.isEmpty()) {
            errors.add(new Problem.FieldError(field, "required: an ISO date such as 2025-01-02"));
            return null;
        }
        try {
            return LocalDate.parse(value);
        } catch (DateTimeParseException e) {
            errors.add(new Problem.FieldError(field, "must be an ISO date such as 2025-01-02"));
            return null;
        }
    }
}
