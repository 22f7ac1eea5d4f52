package dev.quota.testkit;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Bounded polling, for tests that wait for state instead of sleeping for a guessed time: asks a
 * condition every {@link #POLL_INTERVAL 50 ms} until it holds or a deadline passes, and then fails with a
 * message that says what was awaited.
 *
 * <pre>{@code
 * server.kill();
 * Await.until(Duration.ofSeconds(10), () -> breaker.state() == State.OPEN, () -> "breaker opens");
 *
 * // a probe answers null for "not yet", and the awaited value once it is there
 * String leader = Await.result(Duration.ofSeconds(30), () -> registry.leaderOrNull(), () -> "a leader");
 * }</pre>
 *
 * <p>Exceptions from the condition: a RuntimeException counts as "not yet" (a connection refused while a
 * server boots), and the last one becomes the cause of the timeout error; an
 * {@link IllegalStateException} instead ends the wait at once and is rethrown, because it means "this
 * will never hold" (the process being waited for has died). A condition that throws an
 * IllegalStateException for a passing reason must catch it and return false.
 */
public final class Await {

    /** How often the condition is asked: every 50 ms. */
    public static final Duration POLL_INTERVAL = Duration.ofMillis(50);

    /** A check that answers null while the awaited thing is not there yet, and the thing once it is. */
    @FunctionalInterface
    public interface Probe<T> {

        /** The awaited value, or null for "not yet". May throw, see {@link Await}. */
        T poll();
    }

    private Await() {
    }

    /**
     * Waits until {@code condition} holds, asking it at once and then every 50 ms, for at most
     * {@code timeout}. E.g. with a 10 s timeout and a condition that first holds after 1.2 s, returns after
     * about 1.2 s.
     *
     * @param description what is awaited, for the timeout message; computed only on timeout
     * @throws IllegalStateException if the condition does not hold within {@code timeout} (the message says
     *     "timed out after PT10S waiting for " and the description), or if it throws one itself
     * @throws IllegalArgumentException if timeout is negative
     */
    public static void until(Duration timeout, BooleanSupplier condition, Supplier<String> description) {
        result(timeout, () -> condition.getAsBoolean() ? Boolean.TRUE : null, description);
    }

    /**
     * Waits until {@code probe} returns non-null and returns that value; otherwise as
     * {@link #until(Duration, BooleanSupplier, Supplier)}. Beware: a probe that returns a Boolean answers
     * at once even with FALSE; use {@code until} for conditions.
     *
     * @param description what is awaited, for the timeout message; computed only on timeout
     * @throws IllegalStateException if the probe answers null or throws until {@code timeout} has passed, or
     *     if it throws an IllegalStateException itself
     * @throws IllegalArgumentException if timeout is negative
     */
    public static <T> T result(Duration timeout, Probe<T> probe, Supplier<String> description) {
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must be >= 0 but was " + timeout);
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        RuntimeException lastError = null;
        while (true) {
            try {
                T value = probe.poll();
                if (value != null) {
                    return value;
                }
            } catch (IllegalStateException fatal) {
                throw fatal;
            } catch (RuntimeException notYet) {
                lastError = notYet;
            }
            if (System.nanoTime() - deadline >= 0) {
                String message = "timed out after " + timeout + " waiting for " + description.get()
                        + (lastError == null ? "" : "; last error: " + lastError);
                throw new IllegalStateException(message, lastError);
            }
            pause();
        }
    }

    /** Waits up to {@code timeout} for a process to exit; true if it has. Keeps the interrupt flag. */
    static boolean exit(Process process, Duration timeout) {
        try {
            return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return !process.isAlive();
        }
    }

    private static void pause() {
        try {
            Thread.sleep(POLL_INTERVAL.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting", e);
        }
    }
}
