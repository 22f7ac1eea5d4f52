package dev.quota.core.resilience;

import dev.quota.core.spi.QuotaStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/** Settings for a {@link CircuitBreakerStore}; defaults as described there. */
public final class CircuitBreakerStoreBuilder {
    final QuotaStore delegate;
    int failureThreshold = 5;
    int failureRateThreshold = 50;
    int slidingWindowSize = 20;
    Duration openDuration = Duration.ofSeconds(1);
    Duration probeInterval = Duration.ofMillis(250);
    @Nullable Runnable healthCheck;
    final List<CircuitBreakerStore.Listener> listeners = new ArrayList<>();

    CircuitBreakerStoreBuilder(QuotaStore delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /**
     * Consecutive failures that open the breaker; default 5.
     *
     * @throws IllegalArgumentException if below 1
     */
    public CircuitBreakerStoreBuilder failureThreshold(int failures) {
        if (failures < 1) {
            throw new IllegalArgumentException("failureThreshold must be >= 1 but was " + failures);
        }
        this.failureThreshold = failures;
        return this;
    }

    /**
     * The failure rate, in percent of the last {@link #slidingWindowSize} calls, that opens the
     * breaker; default 50. Judged only once that many calls were made since it last closed.
     *
     * @throws IllegalArgumentException if not in 1..100
     */
    public CircuitBreakerStoreBuilder failureRateThreshold(int percent) {
        if (percent < 1 || percent > 100) {
            throw new IllegalArgumentException("failureRateThreshold must be in 1..100 but was " + percent);
        }
        this.failureRateThreshold = percent;
        return this;
    }

    /**
     * How many of the latest calls the failure rate is computed over; default 20.
     *
     * @throws IllegalArgumentException if below 1
     */
    public CircuitBreakerStoreBuilder slidingWindowSize(int calls) {
        if (calls < 1) {
            throw new IllegalArgumentException("slidingWindowSize must be >= 1 but was " + calls);
        }
        this.slidingWindowSize = calls;
        return this;
    }

    /**
     * The least time the breaker stays open before a health check or a trial call may close it;
     * default 1 s. Measured by {@link System#nanoTime()}, as Failsafe measures it.
     *
     * @throws IllegalArgumentException if not positive
     */
    public CircuitBreakerStoreBuilder openDuration(Duration duration) {
        this.openDuration = requirePositive(duration, "openDuration");
        return this;
    }

    /**
     * How often the probe thread checks an open breaker; default 250 ms. Used only with a
     * {@link #healthCheck}.
     *
     * @throws IllegalArgumentException if not positive
     */
    public CircuitBreakerStoreBuilder probeInterval(Duration interval) {
        this.probeInterval = requirePositive(interval, "probeInterval");
        return this;
    }

    /**
     * A check that returns normally when the store answers and throws when it does not, e.g.
     * {@code redisStore::ping}. With it, one daemon thread probes an open breaker; without it
     * (the default), a trial request does. It should be bounded by the store's timeout.
     */
    public CircuitBreakerStoreBuilder healthCheck(Runnable check) {
        this.healthCheck = Objects.requireNonNull(check, "check");
        return this;
    }

    /** Adds a listener for state changes; none by default. */
    public CircuitBreakerStoreBuilder listener(CircuitBreakerStore.Listener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
        return this;
    }

    /** The breaker, closed; with a health check, its probe thread is started. */
    public CircuitBreakerStore build() {
        CircuitBreakerStore breaker = new CircuitBreakerStore(this);
        breaker.startProbing(probeInterval);
        return breaker;
    }

    private static Duration requirePositive(Duration duration, String name) {
        if (duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException(name + " must be positive but was " + duration);
        }
        return duration;
    }
}
