package dev.quota.core.resilience;

import java.util.Arrays;

/**
 * The recent outcomes of store calls: a count-based sliding window of the last {@code size} calls,
 * for the failure rate (Failsafe's breaker counts the consecutive failures). Not thread-safe; the
 * breaker guards it.
 */
final class FailureWindow {

    private final boolean[] failed;
    private int next;
    private int recorded;
    private int failures;

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
        }
        next = (next + 1) % failed.length;
    }

    /** Failures per recorded call in percent, or -1 until the window is full. */
    int failureRatePercent() {
        return recorded < failed.length ? -1 : failures * 100 / recorded;
    }

    void clear() {
        next = 0;
        recorded = 0;
        failures = 0;
        Arrays.fill(failed, false);
    }
}
