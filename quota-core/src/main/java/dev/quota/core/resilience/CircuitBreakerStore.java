package dev.quota.core.resilience;

import dev.quota.core.QuotaStoreException;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.QuotaStore;
import dev.quota.core.spi.Take;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A store that stops calling its delegate while the delegate keeps failing, so that a Redis
 * outage costs each request microseconds instead of a timeout: the caller's failure policy
 * answers at once.
 *
 * <p>Closed, every call goes through. After {@code failureThreshold} consecutive failures
 * (default 5), or when at least {@code failureRateThreshold} percent of the last
 * {@code slidingWindowSize} calls failed (default 50 % of 20), the breaker opens: every call
 * fails immediately with a {@link QuotaStoreException}. It stays open for at least
 * {@code openDuration} (default 1 s); then
 * <ul>
 *   <li>with a {@link CircuitBreakerStoreBuilder#healthCheck health check} (for Redis:
 *       {@code redisStore::ping}), one daemon thread runs the check every {@code probeInterval}
 *       (default 250 ms) and closes the breaker when it passes; no request is used as a guinea pig;
 *   <li>without one, the breaker becomes half-open: the next call goes through as a trial and
 *       closes the breaker if it succeeds, reopens it if it fails; other calls keep failing fast.
 * </ul>
 * With the defaults, Redis down at 1,000 requests per second costs five requests a store timeout
 * each (100 ms for {@code RedisStore}); the rest fail within microseconds, and decisions go back
 * to Redis within about 1.25 s of it answering again.
 *
 * <p>Only {@link QuotaStoreException}s count as failures. Thread-safe. {@link #close()} stops
 * the probe thread and closes the delegate.
 */
public final class CircuitBreakerStore implements QuotaStore {

    private static final Logger log = LoggerFactory.getLogger(CircuitBreakerStore.class);

    private final QuotaStore delegate;
    private final Clock clock;
    private final int failureThreshold;
    private final int failureRateThreshold;
    private final Duration openDuration;
    private final @Nullable Runnable healthCheck;
    private final List<Listener> listeners;
    private final @Nullable ScheduledExecutorService prober;

    // guarded by this; state is also read without the lock on the fast path
    private final FailureWindow window;
    private volatile State state = State.CLOSED;
    private Instant openedAt = Instant.MIN;
    private boolean trialInFlight;
    private volatile String openReason = "";

    CircuitBreakerStore(CircuitBreakerStoreBuilder builder) {
        this.delegate = builder.delegate;
        this.clock = builder.clock;
        this.failureThreshold = builder.failureThreshold;
        this.failureRateThreshold = builder.failureRateThreshold;
        this.openDuration = builder.openDuration;
        this.healthCheck = builder.healthCheck;
        this.listeners = List.copyOf(builder.listeners);
        this.window = new FailureWindow(builder.slidingWindowSize);
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
        return state;
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
            prober.scheduleWithFixedDelay(this::probe, nanos, nanos, TimeUnit.NANOSECONDS);
        }
    }

    /**
     * Runs the health check once if the breaker is open and its open duration has passed, and
     * closes the breaker if the check passes. The probe thread calls this every probe interval.
     */
    void probe() {
        Runnable check = healthCheck;
        if (check == null || state != State.OPEN) {
            return;
        }
        synchronized (this) {
            if (state != State.OPEN || clock.instant().isBefore(openedAt.plus(openDuration))) {
                return;
            }
        }
        try {
            check.run();
        } catch (RuntimeException stillDown) {
            log.debug("quota store health check failed: {}", stillDown.toString());
            return;
        }
        Transition closed = null;
        synchronized (this) {
            if (state == State.OPEN) {
                closed = moveTo(State.CLOSED, "health check passed");
            }
        }
        announce(closed);
    }

    private <T> T call(Supplier<T> operation) {
        boolean trial = admit();
        boolean recorded = false;
        try {
            T result = operation.get();
            recorded = true;
            announce(recordSuccess(trial));
            return result;
        } catch (QuotaStoreException e) {
            recorded = true;
            announce(recordFailure(trial, e));
            throw e;
        } finally {
            if (trial && !recorded) {
                // neither success nor store failure (a bug or a bad argument): let another call try
                synchronized (this) {
                    trialInFlight = false;
                }
            }
        }
    }

    /** Whether the call may go through, and if it is the half-open trial; throws while open. */
    private boolean admit() {
        if (state == State.CLOSED) {
            return false;
        }
        Transition halfOpen = null;
        boolean trial = false;
        synchronized (this) {
            if (state == State.CLOSED) {
                return false;
            }
            if (state == State.OPEN && healthCheck == null
                    && !clock.instant().isBefore(openedAt.plus(openDuration))) {
                halfOpen = moveTo(State.HALF_OPEN, "open duration " + openDuration + " passed");
            }
            if (state == State.HALF_OPEN && !trialInFlight) {
                trialInFlight = true;
                trial = true;
            }
        }
        announce(halfOpen);
        if (!trial) {
            throw new QuotaStoreException("circuit breaker open (" + openReason + "); not calling the store");
        }
        return true;
    }

    private synchronized @Nullable Transition recordSuccess(boolean trial) {
        if (trial) {
            trialInFlight = false;
            return state == State.HALF_OPEN ? moveTo(State.CLOSED, "trial call succeeded") : null;
        }
        if (state == State.CLOSED) {
            window.record(false);
        }
        return null;
    }

    private synchronized @Nullable Transition recordFailure(boolean trial, QuotaStoreException e) {
        if (trial) {
            trialInFlight = false;
            return state == State.HALF_OPEN ? moveTo(State.OPEN, "trial call failed: " + e.getMessage()) : null;
        }
        if (state != State.CLOSED) {
            return null;
        }
        window.record(true);
        if (window.consecutiveFailures() >= failureThreshold) {
            return moveTo(State.OPEN, window.consecutiveFailures() + " consecutive failures, last: " + e.getMessage());
        }
        int rate = window.failureRatePercent();
        if (rate >= failureRateThreshold) {
            return moveTo(State.OPEN, rate + " % of the last calls failed, last: " + e.getMessage());
        }
        return null;
    }

    /** Changes state; the caller holds the lock and announces the result after releasing it. */
    private Transition moveTo(State next, String reason) {
        State previous = state;
        state = next;
        if (next == State.OPEN) {
            openedAt = clock.instant();
            openReason = reason;
        } else if (next == State.CLOSED) {
            window.clear();
        }
        return new Transition(previous, next, reason);
    }

    private void announce(@Nullable Transition transition) {
        if (transition == null) {
            return;
        }
        if (transition.to == State.OPEN) {
            log.warn("quota store circuit opened ({}); calls fail fast for at least {} while {} recovers",
                    transition.reason, openDuration, delegate.describe());
        } else {
            log.info("quota store circuit {} ({})", transition.to == State.CLOSED ? "closed" : "half-open",
                    transition.reason);
        }
        for (Listener listener : listeners) {
            try {
                listener.stateChanged(transition.from, transition.to);
            } catch (RuntimeException e) {
                log.warn("circuit breaker listener {} failed: {}", listener, e.toString());
            }
        }
    }

    private record Transition(State from, State to, String reason) {
    }

    /** The breaker's states. */
    public enum State {
        /** Calls go through; failures are counted. */
        CLOSED,
        /** Calls fail at once; the health check (or the open duration) decides when to close. */
        OPEN,
        /** Without a health check, after the open duration: one trial call goes through. */
        HALF_OPEN
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
