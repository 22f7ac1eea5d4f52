package dev.quota.jaxrs.admin;

import dev.quota.core.internal.LogThrottle;
import dev.quota.jaxrs.internal.RateLimitHeaders;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin API's key=value lines on the logger {@value #LOGGER}. Calls that carried the token
 * ({@code outcome=ok}, {@code unknown-customer}, {@code store-unavailable}) are all written;
 * refused ones ({@code denied}: no or a wrong token, {@code throttled}: too many of those from one
 * address) are throttled, because anyone can send them: 10 at once, then 1 a second, the rest
 * counted and written as {@code action=refused outcome=suppressed count=288
 * since=2026-11-29T10:00:00Z} at the first admin call at least 10 s after the first one left out.
 * No token, no key, no header value is written; values that are not plain are quoted and escaped,
 * so a line cannot be forged.
 */
final class AdminAudit {

    /** The logger name. */
    static final String LOGGER = "dev.quota.audit";
    /** Refused calls written at once before the rate applies. */
    static final int REFUSED_BURST = 10;
    /** Refused calls written per second after the burst. */
    static final int REFUSED_PER_SECOND = 1;
    /** The least time from the first refused call left out to the line that counts them. */
    static final Duration SUMMARY_EVERY = Duration.ofSeconds(10);

    private static final Logger audit = LoggerFactory.getLogger(LOGGER);

    private final LogThrottle refusals;

    AdminAudit(Clock clock) {
        this.refusals = new LogThrottle(clock, REFUSED_BURST, REFUSED_PER_SECOND, SUMMARY_EVERY);
    }

    /** A call without the right token. */
    void denied(String action, String client) {
        refused("action=" + action + " outcome=denied client=" + value(client));
    }

    /** A call refused because its address sent too many wrong tokens. */
    void throttled(String action, String client, Duration retryAfter) {
        refused("action=" + action + " outcome=throttled client=" + value(client) + " retryAfterSeconds="
                + RateLimitHeaders.retryAfterSeconds(retryAfter));
    }

    /** Writes the count of refused calls left out, if it is due; called on every admin call. */
    void summaryIfDue() {
        summary(refusals.summaryIfDue());
    }

    /** A call with the right token: always written, at INFO (or WARN when {@code warn}). */
    void authorized(String line, boolean warn) {
        if (warn) {
            audit.warn(line);
        } else {
            audit.info(line);
        }
    }

    private void refused(String line) {
        LogThrottle.Permit permit = refusals.offer();
        summary(permit.summary());
        if (permit.write()) {
            audit.warn(line);
        }
    }

    private static void summary(LogThrottle.@Nullable Summary summary) {
        if (summary != null) {
            audit.warn("action=refused outcome=suppressed count={} since={}", summary.count(), summary.since());
        }
    }

    /** A value for a key=value line: as it is when plain, else quoted with escapes. */
    static String value(String value) {
        boolean plain = !value.isEmpty();
        for (int i = 0; i < value.length() && plain; i++) {
            char c = value.charAt(i);
            plain = c > 0x20 && c < 0x7F && c != '"' && c != '=' && c != '\\';
        }
        if (plain) {
            return value;
        }
        StringBuilder out = new StringBuilder(value.length() + 2).append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20 || c == 0x7F) {
                out.append(String.format(Locale.ROOT, "\\x%02x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }
}
