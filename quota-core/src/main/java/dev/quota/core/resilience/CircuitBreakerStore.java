package dev.quota.core.resilience;

import dev.failsafe.CircuitBreaker;
import dev.failsafe.event.CircuitBreakerStateChangedEvent;
import dev.quota.core.QuotaStoreException;
import dev.quota.core.spi.Adjustment;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.QuotaStore;
import dev.quota.core.spi.Take;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A store that stops calling its delegate while the delegate keeps failing, so that a Redis
 * outage costs each request microseconds instead of a timeout, and that tells an outage from a
 * slow call: only an outage it has established lets the limits' failure policy answer.
 *
 * <p>A failure while the breaker is closed is one call failing (a timeout on a busy machine): it
 * reaches the caller as a plain {@link QuotaStoreException}, and the decision is refused with 503
 * whatever the policy, since the store may be serving everyone else. An outage is established when
 * the breaker has opened <em>and</em> the store then failed its check: the
 * {@link CircuitBreakerStoreBuilder#healthCheck health check}, run at the first probe after the
 * breaker opens (within one probe interval) and every probe interval after the open duration, or,
 * without one, the half-open trial call. From then on every
 * call fails with {@link QuotaStoreException#outage()} true and the failure policy ({@code local},
 * {@code open}, {@code closed}) answers. When the check passes at once instead (the store answers a
 * ping, the failed calls were slow ones), the breaker closes again. Until the check has spoken,
 * calls fail fast as plain failures (503). Without a health check, the breaker stays open for the
 * open duration before its trial, so prefer one ({@code redisStore::ping}, {@code jcacheStore::ping}).
 *
 * <p>Closed, every call goes through. After {@code failureThreshold} consecutive failures
 * (default 5), or when at least {@code failureRateThreshold} percent of the last
 * {@code slidingWindowSize} calls failed (default 50 % of 20, judged once 20 calls were made since
 * it last closed), the breaker opens: every call fails immediately with a
 * {@link QuotaStoreException}. It stays open for at least {@code openDuration} (default 1 s); then
 * <ul>
 *   <li>with a {@link CircuitBreakerStoreBuilder#healthCheck health check} (for Redis:
 *       {@code redisStore::ping}), one daemon thread runs the check every {@code probeInterval}
 *       (default 250 ms) and closes the breaker when it passes; no request is used as a guinea pig;
 *   <li>without one, the breaker becomes half-open: the next call goes through as a trial and
 *       closes the breaker if it succeeds, reopens it if it fails; other calls keep failing fast.
 * </ul>
 * With the defaults, Redis down at 1,000 requests per second costs the requests in flight a store
 * timeout each (up to 2 s for {@code RedisStore}; a refused connection fails at once); from the
 * fifth failure the breaker is open, and the requests until its first health check has failed
 * (within 250 ms plus the ping's own timeout) are refused with 503 at once; the rest are answered
 * by the failure policy within microseconds, and decisions go back to Redis within about 1.25 s of
 * it answering again.
 *
 * <p>The state machine is Failsafe's {@link CircuitBreaker}: the consecutive-failure threshold,
 * the open duration (by {@link System#nanoTime()}), the single half-open trial, the listeners.
 * This class adds what Failsafe does not do: a failure-rate window next to the consecutive count
 * (a Failsafe breaker has one threshold; this one opens it with {@link CircuitBreaker#open()}),
 * and closing on a health check without a trial request (with a check, Failsafe is never left to
 * half-open by itself: the probe calls {@link CircuitBreaker#close()}).
 *
 * <p>Only {@link QuotaStoreException}s count as failures. Another exception (a bad argument)
 * counts for nothing while closed; thrown by the half-open trial, it counts as a failed trial,
 * since the store did not show that it answers. Thread-safe. {@link #close()} stops the probe
 * thread and closes the delegate.
 */
public final class CircuitBreakerStore implements QuotaStore {

    private static final Logger log = LoggerFactory.getLogger(CircuitBreakerStore.class);
    /** Failsafe's open delay with a health check: never ends by itself; the probe closes the breaker. */
    private static final Duration UNTIL_THE_PROBE_CLOSES = Duration.ofDays(365L * 100);

    private final QuotaStore delegate;
    private final Duration openDuration;
    private final int failureRateThreshold;
    private final @Nullable Runnable healthCheck;
    private final List<Listener> listeners;
    private final @Nullable ScheduledExecutorService prober;
    private final CircuitBreaker<Object> breaker;

    // guarded by itself
    private final FailureWindow window;
    /**
     * Whether the window is full and none of its calls failed, while the window is at least as long as
     * the consecutive-failure threshold: a success then changes nothing, in the window or in
     * Failsafe's count, so it is not recorded and takes no lock (a lock every call takes would
     * serialize every decision of the JVM). Set under the window's lock, cleared first by a failure.
     * A success that read it just before a failure cleared it goes unrecorded, which can only open
     * the breaker sooner, never later.
     */
    private volatile boolean clean;
    private final boolean windowCoversThreshold;
    private volatile long openedAtNanos;
    private volatile String openReason = "";
    private volatile String lastFailure = "";
    /** Whether the store failed its check since the breaker last opened: an established outage. */
    private volatile boolean outage;
    /** Whether the probe ran the health check since the breaker last opened (the probe thread's). */
    private volatile boolean checkedSinceOpen;
    /** Whether the breaker is half-open: opening again then means its trial failed. */
    private volatile boolean trialOut;
    /** Set just before this class opens the breaker for the failure rate; the open event takes it. */
    private volatile @Nullable String rateReason;

    CircuitBreakerStore(CircuitBreakerStoreBuilder builder) {
        this.delegate = builder.delegate;
        this.openDuration = builder.openDuration;
        this.failureRateThreshold = builder.failureRateThreshold;
        this.healthCheck = builder.healthCheck;
        this.listeners = List.copyOf(builder.listeners);
        this.window = new FailureWindow(builder.slidingWindowSize);
        this.windowCoversThreshold = builder.slidingWindowSize >= builder.failureThreshold;
        this.breaker = CircuitBreaker.builder()
                .withFailureThreshold(builder.failureThreshold)
                .withSuccessThreshold(1) // one trial call at a time, and one success closes
                .withDelay(healthCheck == null ? openDuration : UNTIL_THE_PROBE_CLOSES)
                .onOpen(this::opened)
                .onHalfOpen(this::halfOpened)
                .onClose(this::closed)
                .build();
        this.prober = healthCheck == null ? null : new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "quota-circuit-probe");
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * A builder for a breaker in front of {@code delegate}, with the defaults described on
     * {@link CircuitBreakerStore}.
     */
    public static CircuitBreakerStoreBuilder builder(QuotaStore delegate) {
        return new CircuitBreakerStoreBuilder(delegate);
    }

    /** The breaker's state now. */
    public State state() {
        return State.of(breaker.getState());
    }

    /**
     * Whether an outage is established now: the breaker is open and the store failed its health
     * check (or the half-open trial) since it opened. Only then does the failure policy answer.
     */
    public boolean outage() {
        return outage && !breaker.isClosed();
    }

    @Override
    public List<ConsumeResult> tryConsume(List<Take> takes) {
        return call(() -> delegate.tryConsume(takes));
    }

    @Override
    public void addTokens(BucketKey key, BucketSpec spec, long tokens) {
        call(() -> {
            delegate.addTokens(key, spec, tokens);
            return null;
        });
    }

    @Override
    public void releaseLease(BucketKey key, BucketSpec spec, long lease) {
        call(() -> {
            delegate.releaseLease(key, spec, lease);
            return null;
        });
    }

    @Override
    public void adjust(List<Adjustment> adjustments) {
        call(() -> {
            delegate.adjust(adjustments);
            return null;
        });
    }

    @Override
    public ConsumeResult peek(BucketKey key, BucketSpec spec) {
        return call(() -> delegate.peek(key, spec));
    }

    @Override
    public void reset(BucketKey key) {
        call(() -> {
            delegate.reset(key);
            return null;
        });
    }

    @Override
    public String describe() {
        return delegate.describe() + " behind a circuit breaker";
    }

    /** Stops the probe thread and closes the delegate. */
    @Override
    public void close() {
        if (prober != null) {
            prober.shutdownNow();
        }
        delegate.close();
    }

    /** Starts probing every {@code interval}, if there is a health check; called once by the builder. */
    void startProbing(Duration interval) {
        if (prober != null) {
            long nanos = interval.toNanos();
            // the future is not kept: a failed health check is caught in check(), and close() ends the
            // schedule by shutting the executor down
            ScheduledFuture<?> unused = prober.scheduleWithFixedDelay(this::probe, nanos, nanos, TimeUnit.NANOSECONDS);
        }
    }

    /**
     * Runs the health check if the breaker is open and either the check has not run since it
     * opened or its open duration has passed; closes the breaker if the check passes. The probe
     * thread calls this every probe interval.
     *
     * <p>The first check, at the first probe after opening, tells an outage from slow calls:
     * failing, it establishes the outage (the failure policy answers from then on); passing, it
     * closes the breaker at once, since the store answers and the failed calls were slow ones (each
     * was refused with 503).
     */
    void probe() {
        Runnable check = healthCheck;
        if (check == null || !breaker.isOpen()) {
            return;
        }
        if (checkedSinceOpen && System.nanoTime() - openedAtNanos < openDuration.toNanos()) {
            return;
        }
        checkedSinceOpen = true;
        if (check(check)) {
            breaker.close(); // from OPEN only: a no-op if a call closed or reopened it meanwhile
        }
    }

    /** Runs the check; a failure establishes the outage. */
    private boolean check(Runnable check) {
        try {
            check.run();
            return true;
        } catch (RuntimeException stillDown) {
            if (!outage) {
                outage = true;
                log.warn("quota store outage established: the health check failed ({}); the limits' failure"
                        + " policies answer until it passes", stillDown.toString());
            } else {
                log.debug("quota store health check failed: {}", stillDown.toString());
            }
            return false;
        }
    }

    private <T> T call(Supplier<T> operation) {
        if (!breaker.tryAcquirePermit()) {
            if (outage) {
                throw QuotaStoreException.outage("circuit breaker open (" + openReason + "), health check failing;"
                        + " not calling the store");
            }
            throw new QuotaStoreException("circuit breaker open (" + openReason + "), outage not established yet;"
                    + " not calling the store");
        }
        T result;
        try {
            result = operation.get();
        } catch (QuotaStoreException e) {
            failed(e);
            throw e;
        } catch (RuntimeException | Error e) {
            if (breaker.isHalfOpen()) {
                breaker.recordFailure(); // the trial proved nothing; its permit must not be lost
            }
            throw e;
        }
        succeeded();
        return result;
    }

    private void succeeded() {
        if (clean) {
            return; // the hot path: closed, and nothing to reset
        }
        if (breaker.isClosed()) {
            synchronized (window) {
                window.record(false);
                clean = windowCoversThreshold && window.failureRatePercent() == 0 && breaker.isClosed();
            }
        }
        breaker.recordSuccess();
    }

    /** Whether a success is now recorded without a lock: the test's view of {@link #clean}. */
    boolean recordsSuccessWithoutLock() {
        return clean;
    }

    private void failed(QuotaStoreException e) {
        clean = false;
        lastFailure = String.valueOf(e.getMessage());
        if (!breaker.isClosed()) {
            breaker.recordFailure(); // a failed trial reopens; while open nothing is counted
            return;
        }
        int rate;
        synchronized (window) {
            window.record(true);
            rate = window.failureRatePercent();
        }
        breaker.recordFailure(); // Failsafe counts the consecutive failures, and may open here
        if (rate >= failureRateThreshold && breaker.isClosed()) {
            rateReason = rate + " % of the last calls failed, last: " + lastFailure;
            breaker.open();
            rateReason = null; // taken by the open event, or another thread opened it first
        }
    }

    private void opened(CircuitBreakerStateChangedEvent event) {
        openedAtNanos = System.nanoTime();
        // a failed half-open trial is the check of a breaker without a health check
        outage = trialOut;
        trialOut = false;
        checkedSinceOpen = false;
        String reason = rateReason;
        rateReason = null;
        if (reason == null) {
            reason = event.getPreviousState() == CircuitBreaker.State.HALF_OPEN
                    ? "trial call failed: " + lastFailure
                    : breaker.getConfig().getFailureThreshold() + " consecutive failures, last: " + lastFailure;
        }
        openReason = reason;
        log.warn("quota store circuit opened ({}); calls fail fast for at least {} while {} recovers",
                reason, openDuration, delegate.describe());
        announce(event, State.OPEN);
    }

    private void halfOpened(CircuitBreakerStateChangedEvent event) {
        trialOut = true;
        log.info("quota store circuit half-open (open duration {} passed)", openDuration);
        announce(event, State.HALF_OPEN);
    }

    private void closed(CircuitBreakerStateChangedEvent event) {
        outage = false;
        trialOut = false;
        synchronized (window) {
            window.clear();
            clean = false;
        }
        log.info("quota store circuit closed ({})", event.getPreviousState() == CircuitBreaker.State.HALF_OPEN
                ? "trial call succeeded" : "health check passed");
        announce(event, State.CLOSED);
    }

    /** Tells the listeners, on the thread that caused the change, after it happened. */
    private void announce(CircuitBreakerStateChangedEvent event, State to) {
        State from = State.of(event.getPreviousState());
        for (Listener listener : listeners) {
            try {
                listener.stateChanged(from, to);
            } catch (RuntimeException e) {
                log.warn("circuit breaker listener {} failed: {}", listener, e.toString());
            }
        }
    }

    /** The breaker's states. */
    public enum State {
        /** Calls go through; failures are counted. */
        CLOSED,
        /**
         * Calls fail at once; the health check (or the open duration) decides when to close. The
         * failure policy answers them once the check failed ({@link CircuitBreakerStore#outage()}).
         */
        OPEN,
        /** Without a health check, after the open duration: one trial call goes through. */
        HALF_OPEN;

        static State of(CircuitBreaker.State state) {
            return switch (state) {
                case CLOSED -> CLOSED;
                case OPEN -> OPEN;
                case HALF_OPEN -> HALF_OPEN;
            };
        }
    }

    /** Told of every state change, e.g. to export the state as a metric. */
    @FunctionalInterface
    public interface Listener {
        /**
         * Called on the thread that caused the change, after it happened; an exception thrown here
         * is logged and ignored.
         */
        void stateChanged(State from, State to);
    }
}
