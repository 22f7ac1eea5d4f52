package dev.quota.demo;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Random;
import java.util.function.LongPredicate;
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
     * Stops after the row {@code rowWritten} answers false for: the customer has nothing left for
     * another, and the CSV ends there, after a whole row.
     */
    void write(OutputStream out, LongPredicate rowWritten) throws IOException {
        out.write("date,closingBalance,currency\r\n".getBytes(StandardCharsets.US_ASCII));
        rows(out, rowWritten, false);
    }

    /**
     * Writes the statement as server-sent events: one {@code row} event per day, its data the CSV
     * row, flushed; when {@code rowWritten} answers false, a last {@code quota-exhausted} event
     * whose data says how many rows were sent, then the stream ends.
     */
    void writeEvents(OutputStream out, LongPredicate rowWritten) throws IOException {
        long rows = rows(out, rowWritten, true);
        if (rows >= 0) {
            return;
        }
        out.write(("event: quota-exhausted\ndata: {\"rows\":" + -rows + "}\n\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    /** The rows written: positive when all were, negative when {@code rowWritten} stopped it. */
    private long rows(OutputStream out, LongPredicate rowWritten, boolean events) throws IOException {
        Random random = new Random(account.id().hashCode() * 31L + from.toEpochDay());
        long balance = account.balanceMinor();
        long rows = 0;
        for (LocalDate day = from; !day.isAfter(to); day = day.plusDays(1)) {
            balance += (random.nextInt(2) == 0 ? -1 : 1) * random.nextInt(50_000);
            String row = day + "," + Money.format(balance) + "," + account.currency();
            out.write((events ? "event: row\ndata: " + row + "\n\n" : row + "\r\n").getBytes(StandardCharsets.US_ASCII));
            if (events) {
                out.flush();
            }
            rows++;
            if (!rowWritten.test(1)) {
                return -rows;
            }
        }
        return rows;
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
