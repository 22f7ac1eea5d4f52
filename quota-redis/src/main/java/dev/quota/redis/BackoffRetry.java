package dev.quota.redis;

import io.github.bucket4j.distributed.proxy.RetryStrategy;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;

/**
 * Retries a compare-and-swap that lost a race after an exponential backoff with full jitter, until
 * a time budget is spent: base 1 ms, max 20 ms, budget 500 ms waits up to 1, 2, 4, 8, 16, 20, 20 ...
 * ms (each a random fraction of that) and then gives up, so contention on a hot key spreads out
 * instead of spinning.
 */
final class BackoffRetry implements RetryStrategy {

    private final long baseNanos;
    private final long maxNanos;
    private final long budgetNanos;

    BackoffRetry(Duration base, Duration max, Duration budget) {
        this.baseNanos = base.toNanos();
        this.maxNanos = max.toNanos();
        this.budgetNanos = budget.toNanos();
    }

    @Override
    public boolean shouldRetry(RetryMetadata metadata) {
        long elapsed = metadata.getElapsedTimeNanos();
        if (elapsed >= budgetNanos) {
            return false;
        }
        int shift = Math.min(30, Math.max(0, metadata.getAttemptNumber() - 1));
        long ceiling = Math.min(maxNanos, baseNanos << shift);
        if (ceiling <= 0) {
            ceiling = maxNanos; // the shift overflowed
        }
        long pause = Math.min(ThreadLocalRandom.current().nextLong(ceiling + 1), budgetNanos - elapsed);
        if (pause > 0) {
            LockSupport.parkNanos(pause);
        }
        return true;
    }
}
