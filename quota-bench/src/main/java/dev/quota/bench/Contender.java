package dev.quota.bench;

/**
 * One limiter under test, bound to one Redis client (one "instance") and one key namespace:
 * customer {@code i} has its own bucket. Thread-safe.
 */
public interface Contender extends AutoCloseable {

    /** Takes one token from customer {@code customer}'s bucket, or not. Never throws. */
    Outcome acquire(int customer);

    /** A string every Redis command about {@code customer}'s bucket carries in an argument. */
    String keyMarker(int customer);

    /** Sets up customers {@code 0 .. customers-1} before the clock starts, if the limiter needs it. */
    default void prepare(int customers) {
    }

    @Override
    void close();
}
