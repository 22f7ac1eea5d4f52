package dev.quota.testkit;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/** Bounded polling: asks a probe every 50 ms until it answers or a deadline passes. */
final class Await {

    static final Duration POLL_INTERVAL = Duration.ofMillis(50);

    /** A readiness check: returns null while not ready; may throw while the thing is still coming up. */
    @FunctionalInterface
    interface Probe<T> {
        T poll();
    }

    private Await() {
    }

    /**
     * Polls {@code probe} until it returns non-null. A RuntimeException from the probe counts as "not yet"
     * (a connection refused while a server boots) and is attached to the timeout error, except an
     * IllegalStateException, which means "this will never succeed" (the process died) and ends the wait.
     */
    static <T> T until(Duration timeout, Probe<T> probe, Supplier<String> timeoutMessage) {
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
                String message = timeoutMessage.get() + (lastError == null ? "" : "; last error: " + lastError);
                throw new IllegalStateException(message, lastError);
            }
            sleep(POLL_INTERVAL);
        }
    }

    static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting", e);
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
}
