package dev.quota.core;

import dev.quota.core.config.ApiKeys;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One INFO line per rejection on the logger {@value #LOGGER}, in key=value form for log search:
 * <pre>
 * quota.rejected customer=2bd806c97f0e plan=free rule=- policy=free-burst retry_after_ms=100 outcome=REJECTED
 * </pre>
 * The customer is the first 12 hex digits of the SHA-256 of its id, so the log holds neither an id,
 * an API key nor a client address; amount rejections name the policy, never an amount.
 *
 * <p>Sampled so a flood cannot flood the log: at most {@code perSecond} lines per second (a token
 * bucket in the JVM, burst {@code perSecond}); lines beyond that are counted and reported as
 * {@code quota.rejected.suppressed count=980 since=2026-11-29T10:00:00Z} with the next rejection
 * at least {@code summaryEvery} after the first suppressed one, and on close.
 */
final class RejectionLog {

    /** The logger name. */
    static final String LOGGER = "dev.quota.rejections";

    private final Clock clock;
    private final int perSecond;
    private final Duration summaryEvery;
    private final Consumer<String> sink;
    private final BooleanSupplier enabled;

    // guarded by this
    private double tokens;
    private Instant refilledAt;
    private long suppressed;
    private @Nullable Instant suppressedSince;

    /** Logs to {@value #LOGGER} at INFO. */
    static RejectionLog toSlf4j(Clock clock, int perSecond) {
        Logger logger = LoggerFactory.getLogger(LOGGER);
        return new RejectionLog(clock, perSecond, Duration.ofSeconds(10), logger::info, logger::isInfoEnabled);
    }

    /**
     * @param perSecond    lines per second, 0 to log none
     * @param summaryEvery the least time between a first suppressed line and its summary
     */
    RejectionLog(Clock clock, int perSecond, Duration summaryEvery, Consumer<String> sink, BooleanSupplier enabled) {
        this.clock = clock;
        this.perSecond = perSecond;
        this.summaryEvery = summaryEvery;
        this.sink = sink;
        this.enabled = enabled;
        this.tokens = perSecond;
        this.refilledAt = clock.instant();
    }

    /** A request or amount decision that was rejected or shadow-rejected. */
    void rejected(Customer customer, @Nullable String rule, QuotaDecision decision) {
        if (perSecond == 0 || !enabled.getAsBoolean()) {
            return;
        }
        offer(() -> "quota.rejected customer=" + fingerprint(customer.id()) + " plan=" + customer.plan()
                + " rule=" + (rule == null ? "-" : rule) + " policy=" + policy(decision)
                + " retry_after_ms=" + ceilMillis(decision.retryAfter()) + " outcome=" + decision.outcome());
    }

    /** A client address blocked for failed API-key lookups. */
    void failedKey(String addressGroup, QuotaDecision decision) {
        if (perSecond == 0 || !enabled.getAsBoolean()) {
            return;
        }
        offer(() -> "quota.rejected client=" + fingerprint(addressGroup) + " policy=" + policy(decision)
                + " retry_after_ms=" + ceilMillis(decision.retryAfter()) + " outcome=" + decision.outcome());
    }

    /** Writes the summary of lines suppressed so far, if any. */
    void flush() {
        String summary;
        synchronized (this) {
            summary = takeSummary();
        }
        if (summary != null) {
            sink.accept(summary);
        }
    }

    private void offer(Supplier<String> line) {
        String summary = null;
        boolean write;
        synchronized (this) {
            Instant now = clock.instant();
            refill(now);
            if (suppressedSince != null && !now.isBefore(suppressedSince.plus(summaryEvery))) {
                summary = takeSummary();
            }
            write = tokens >= 1;
            if (write) {
                tokens -= 1;
            } else {
                if (suppressed == 0) {
                    suppressedSince = now;
                }
                suppressed++;
            }
        }
        if (summary != null) {
            sink.accept(summary);
        }
        if (write) {
            sink.accept(line.get());
        }
    }

    private @Nullable String takeSummary() {
        if (suppressed == 0) {
            return null;
        }
        String summary = "quota.rejected.suppressed count=" + suppressed + " since=" + suppressedSince;
        suppressed = 0;
        suppressedSince = null;
        return summary;
    }

    private void refill(Instant now) {
        long nanos = Duration.between(refilledAt, now).toNanos();
        if (nanos > 0) {
            tokens = Math.min(perSecond, tokens + nanos * (double) perSecond / 1e9);
            refilledAt = now;
        }
    }

    private static String policy(QuotaDecision decision) {
        return decision.violated() == null ? "-" : decision.violated().policy();
    }

    private static long ceilMillis(Duration duration) {
        long millis = duration.toMillis();
        return Duration.ofMillis(millis).equals(duration) ? millis : millis + 1;
    }

    /** The first 12 hex digits of the SHA-256 of {@code id}: enough to follow one caller, not to recover it. */
    static String fingerprint(String id) {
        return ApiKeys.sha256Hex(Objects.requireNonNull(id, "id")).substring(0, 12);
    }
}
