package dev.quota.core.resilience;

import java.util.Arrays;

/**
 * The recent outcomes of store calls: the run of consecutive failures and a count-based sliding
 * window of the last {@code size} calls. Not thread-safe; the breaker guards it.
 */
final class FailureWindow {

    private final boolean[] failed;
    private int next;
    private int recorded;
    private int failures;
    private int consecutive;

    FailureWindow(int size) {
        this.failed = new boolean[size];
    }

    void record(boolean failure) {
        if (recorded == failed.length) {
            if (failed[next]) {
                failures--;
            }
        } else {
            recorded++;
        }
        failed[next] = failure;
        if (failure) {
            failures++;
            consecutive++;
        } else {
            consecutive = 0;
        }
        next = (next + 1) % failed.length;
    }

    int consecutiveFailures() {
        return consecutive;
    }

    /** Failures per recorded call in percent, or -1 until the window is full. */
    int failureRatePercent() {
        return recorded < failed.length ? -1 : failures * 100 / recorded;
    }

    void clear() {
        next = 0;
        recorded = 0;
        failures = 0;
        consecutive = 0;
        Arrays.fill(failed, false);
    }
}
