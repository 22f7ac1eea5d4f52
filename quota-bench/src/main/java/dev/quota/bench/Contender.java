package dev.quota.bench;

import org.jspecify.annotations.Nullable;

/**
 * One limiter under test, bound to one Redis client (one "instance") and one key namespace:
 * customer {@code i} has its own bucket. Thread-safe.
 */
public interface Contender extends AutoCloseable {

    /** Takes one token from customer {@code customer}'s bucket, or not. Never throws. */
    Outcome acquire(int customer);

    /** A string every Redis command about {@code customer}'s bucket carries in an argument. */
    String keyMarker(int customer);

    /**
     * Compare-and-swap scripts that found a key changed since the limiter was made (a lost race,
     * computed again); 0 for a limiter that computes in Redis.
     */
    default long conflicts() {
        return 0;
    }

    /** Why the first decision this limiter failed to make failed, or null if none failed (or it cannot say). */
    default @Nullable String firstFailure() {
        return null;
    }

    /** Sets up customers {@code 0 .. customers-1} before the clock starts, if the limiter needs it. */
    default void prepare(int customers) {
    }

    @Override
    void close();
}
