package dev.quota.core.internal;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * Keeps a log line that a client can trigger from flooding the log: a token bucket in the JVM
 * ({@code burst} lines at once, then {@code linesPerSecond}) decides which lines are written; the
 * others are counted and handed back as one {@link Summary} for the caller to write.
 *
 * <p>Burst 20 at 20 per second, a summary every 10 s: a flood of 1,000 rejections a second writes
 * 20 lines, then 20 a second, and every 10 s one line saying how many were left out since when.
 *
 * <p>A summary is due at the first {@link #offer()} at least {@code summaryEvery} after the first
 * line it counts, and is given by {@link #flush()} at any time (on close). With a
 * {@code summaryEvery} of zero it comes with the next line written instead, so the count can go
 * into that line ({@code "store unavailable ... (41 more since the last warning)"}).
 *
 * <p>Thread-safe; constant memory. Used by the rejection log (every refused decision offers a
 * line), the store-failure warnings (every decision during an outage) and the admin audit.
 *
 * <p>The state is guarded by this object's lock, but a flood does not take it for each line: once
 * the bucket is empty and a suppression is counting, an offer before {@link #quietUntilNanos}
 * (a microsecond before the next line may be written or a summary is due) is certainly
 * suppressed without a summary, so it is only counted, in {@link #suppressedFast}, which the lock
 * holder folds into the count before it answers or sums up. A line counted there after a summary
 * was taken goes into the next one: no line is left out of every summary.
 */
public final class LogThrottle {

    private static final Permit SUPPRESSED = new Permit(false, null);

    private final Clock clock;
    private final int burst;
    private final double perNano;
    private final Duration summaryEvery;
    /** Lines suppressed without the lock: folded into {@link #suppressed} under it. */
    private final LongAdder suppressedFast = new LongAdder();
    /**
     * Offers before this time (nanoseconds since the epoch) are suppressed without a summary;
     * {@link Long#MIN_VALUE} when that is not known. Written only under the lock. In nanoseconds,
     * not the clock's milliseconds: a window rounded down to the millisecond, and ended early
     * against rounding, leaves a gap before each line's token in which every offer of a flood takes
     * the lock (DecisionPathBench's decideRefused shows the monitor waits; docs/BENCHMARKS.md).
     */
    private volatile long quietUntilNanos = Long.MIN_VALUE;
    /** False: every offer takes the lock (the plain path the fast one is checked against). */
    private final boolean fastPath;

    // guarded by this
    private double tokens;
    private Instant refilledAt;
    private long suppressed;
    private @Nullable Instant suppressedSince;

    /**
     * @param clock          what the rate and {@code summaryEvery} are measured by
     * @param burst          lines written at once before the rate applies, {@code >= 1}
     * @param linesPerSecond lines written per second after the burst, {@code > 0}
     * @param summaryEvery   the least time from the first suppressed line to its summary; zero:
     *                       with the next line written
     * @throws IllegalArgumentException if burst is below 1, the rate not positive or summaryEvery negative
     */
    public LogThrottle(Clock clock, int burst, double linesPerSecond, Duration summaryEvery) {
        this(clock, burst, linesPerSecond, summaryEvery, true);
    }

    /** As above; {@code fastPath} false: every offer takes the lock, the plain path for tests. */
    LogThrottle(Clock clock, int burst, double linesPerSecond, Duration summaryEvery, boolean fastPath) {
        this.fastPath = fastPath;
        this.clock = Objects.requireNonNull(clock, "clock");
        if (burst < 1) {
            throw new IllegalArgumentException("burst must be >= 1 but was " + burst);
        }
        if (!(linesPerSecond > 0) || Double.isInfinite(linesPerSecond)) {
            throw new IllegalArgumentException("linesPerSecond must be positive but was " + linesPerSecond);
        }
        if (summaryEvery.isNegative()) {
            throw new IllegalArgumentException("summaryEvery must not be negative but was " + summaryEvery);
        }
        this.burst = burst;
        this.perNano = linesPerSecond / 1e9;
        this.summaryEvery = summaryEvery;
        this.tokens = burst;
        this.refilledAt = clock.instant();
    }

    /**
     * Asks whether one more line may be written. Write the permit's summary first, if it has one,
     * then the line, if {@link Permit#write()}.
     */
    public Permit offer() {
        if (epochNanos(clock.instant()) < quietUntilNanos) {
            suppressedFast.increment(); // a flood's line: counted without the lock
            return SUPPRESSED;
        }
        synchronized (this) {
            Instant now = clock.instant();
            fold(now);
            refill(now);
            boolean write = tokens >= 1;
            Summary summary = null;
            if (suppressedSince != null && (write || !summaryEvery.isZero())
                    && !now.isBefore(suppressedSince.plus(summaryEvery))) {
                summary = takeSummary();
            }
            if (write) {
                tokens -= 1;
            } else {
                if (suppressed == 0) {
                    suppressedSince = now;
                }
                suppressed++;
            }
            quietUntilNanos = fastPath ? quietUntil() : Long.MIN_VALUE;
            return write || summary != null ? new Permit(write, summary) : SUPPRESSED;
        }
    }

    /** Counts the lines suppressed without the lock; a stray one after a summary starts the next at {@code now}. */
    private void fold(Instant now) {
        long fast = suppressedFast.sumThenReset();
        if (fast > 0) {
            if (suppressedSince == null) {
                suppressedSince = now;
            }
            suppressed += fast;
        }
    }

    /**
     * The time (nanoseconds since the epoch) before which an offer is suppressed without a
     * summary, as this state stands: when the bucket lacks a line and a suppression is counting,
     * a microsecond (against rounding) before the next line's token or the summary's due time,
     * whichever is first; else {@link Long#MIN_VALUE}.
     */
    private long quietUntil() {
        Instant since = suppressedSince;
        if (tokens >= 1 || since == null) {
            return Long.MIN_VALUE;
        }
        try {
            long toToken = (long) Math.ceil((1 - tokens) / perNano); // at most Long.MAX_VALUE
            long until = Math.addExact(exactNanos(refilledAt), toToken);
            if (!summaryEvery.isZero()) {
                until = Math.min(until, Math.addExact(exactNanos(since), summaryEvery.toNanos()));
            }
            return Math.subtractExact(until, 1_000);
        } catch (ArithmeticException e) {
            return Long.MIN_VALUE; // beyond what nanoseconds since the epoch hold (the year 2262): the lock
        }
    }

    /** {@code at} in nanoseconds since the epoch, or an {@link ArithmeticException} outside what that holds. */
    private static long exactNanos(Instant at) {
        return Math.addExact(Math.multiplyExact(at.getEpochSecond(), 1_000_000_000L), at.getNano());
    }

    /**
     * {@code at} in nanoseconds since the epoch; {@link Long#MAX_VALUE} after what that holds (so
     * the offer takes the lock), {@link Long#MIN_VALUE} before it.
     */
    private static long epochNanos(Instant at) {
        try {
            return exactNanos(at);
        } catch (ArithmeticException e) {
            return at.getEpochSecond() > 0 ? Long.MAX_VALUE : Long.MIN_VALUE;
        }
    }

    /**
     * The summary of the lines suppressed so far if it is due ({@code summaryEvery} after the
     * first of them, and not zero), without offering a line; else null. For callers that see
     * other traffic than the throttled lines and can write a summary there.
     */
    public synchronized @Nullable Summary summaryIfDue() {
        Instant now = clock.instant();
        fold(now);
        if (suppressedSince == null || summaryEvery.isZero() || now.isBefore(suppressedSince.plus(summaryEvery))) {
            return null;
        }
        return takeSummary();
    }

    /** The summary of the lines suppressed so far, or null if none were; the count starts over. */
    public synchronized @Nullable Summary flush() {
        fold(clock.instant());
        return takeSummary();
    }

    private @Nullable Summary takeSummary() {
        if (suppressed == 0 || suppressedSince == null) {
            return null;
        }
        Summary summary = new Summary(suppressed, suppressedSince);
        suppressed = 0;
        suppressedSince = null;
        quietUntilNanos = Long.MIN_VALUE; // the next suppressed line starts a count: under the lock
        return summary;
    }

    private void refill(Instant now) {
        long nanos = Duration.between(refilledAt, now).toNanos();
        if (nanos > 0) {
            tokens = Math.min(burst, tokens + nanos * perNano);
            refilledAt = now;
        }
    }

    /**
     * The answer to one {@link #offer()}.
     *
     * @param write   whether to write the line
     * @param summary lines suppressed before this one, to be written first; null when none is due
     */
    public record Permit(boolean write, @Nullable Summary summary) {
    }

    /**
     * Lines left out.
     *
     * @param count how many, {@code >= 1}
     * @param since when the first of them was offered
     */
    public record Summary(long count, Instant since) {
    }
}
