package dev.quota.core.internal.lease;

import dev.quota.core.TokenLeasing;
import dev.quota.core.spi.Adjustment;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ConsumeResult;
import java.util.Objects;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * One bucket as this instance sees it: its recent demand, its batch, and whether a decision is
 * asking the store for one, for {@link LeasedShares}. Every field is guarded by this object's lock;
 * the answers it gives are what {@link LeasedShares} documents.
 */
final class HotBucket {

    private static final long SECOND = 1_000_000_000L;

    final BucketKey key;
    /** The policy name of the bucket's first limit, as the listener is told it. */
    final String policy;
    private long window;
    private long current;
    private long previous;
    private long lastSeen;
    private long batch;
    private @Nullable BucketSpec batchSpec;
    private long deadline;
    /** Raised each time the batch is retired: tokens of an older generation do not come back to it. */
    private long generation;
    private boolean asking;
    /** The size of the ask in flight, while {@link #asking}. */
    private long asked;
    /**
     * Whether the last answered ask brought all it asked for (true before any): while the bucket is
     * drained, an ask brings little or nothing, and a refusal has nothing to wait for.
     */
    private boolean lastAskFull = true;
    private boolean dead;
    /** The most the batch may hold: the size last asked for, plus one request's tokens less one. */
    private long ceiling;
    /** The bucket's remaining tokens per limit, and its time to full, when the batch was taken. */
    private long @Nullable [] standing;
    private long standingToFull;
    private long standingAt;

    private final TokenLeasing settings;
    private final long leaseNanos;
    /** Where tokens going back to the store are queued. */
    private final Consumer<Adjustment> returns;

    HotBucket(BucketKey key, String policy, TokenLeasing settings, long leaseNanos, Consumer<Adjustment> returns) {
        this.key = key;
        this.policy = policy;
        this.settings = settings;
        this.leaseNanos = leaseNanos;
        this.returns = returns;
    }

    /** Whether this bucket was dropped for being quiet: nothing is added to it any more. */
    synchronized boolean dead() {
        return dead;
    }

    /**
     * Counts a decision, then: the batch serves {@code tokens} ({@code -(generation + 1)}); or
     * the take asks the store for a batch of the answer's size; or 0.
     */
    synchronized long claim(long tokens, BucketSpec spec, long now, int instances) {
        if (dead) {
            return 0;
        }
        long at = now / SECOND;
        if (at != window) {
            previous = at == window + 1 ? current : 0;
            current = 0;
            window = at;
        }
        current++;
        lastSeen = now;
        if (batch > 0) {
            if (now >= deadline || !spec.equals(batchSpec)) {
                retireLocked();
            } else if (batch >= tokens) {
                batch -= tokens;
                return -(generation + 1);
            }
        }
        long rate = Math.max(previous, current);
        if (asking || rate < settings.hotRate()) {
            return 0;
        }
        long size = Math.min(ceilDiv(rate * leaseNanos, SECOND), batchCap(capacity(spec), instances));
        if (size < 2) {
            return 0;
        }
        asking = true;
        asked = size;
        ceiling = size + tokens - 1;
        return size;
    }

    /** The ask of a decision answered: {@code extra} tokens (maybe 0) join the batch; null result: it failed. */
    synchronized void accept(long extra, BucketSpec spec, @Nullable ConsumeResult result, long now) {
        asking = false;
        lastAskFull = result != null && extra >= asked;
        notifyAll(); // a refusal waiting in covers() for this answer
        if (extra == 0 || result == null) {
            return;
        }
        if (batch > 0 && (now >= deadline || !spec.equals(batchSpec))) {
            retireLocked();
        }
        if (dead) { // dropped meanwhile (cannot be while asking, kept for safety): the tokens go back
            returns.accept(Adjustment.ofTokens(key, spec, extra));
            return;
        }
        batch += extra;
        batchSpec = spec;
        deadline = now + leaseNanos;
        trimLocked(spec);
        standing = result.remaining();
        standingToFull = result.nanosToFull();
        standingAt = now;
    }

    /**
     * Whether the batch could serve {@code tokens} of {@code spec} at {@code now}, once an ask in
     * flight (another decision's store call bringing a batch) has been answered: a decision the store
     * refused waits for it, up to {@code maxWaitNanos}, since that batch may hold the very tokens it
     * lacked. It waits only while the last ask answered brought all it asked for: on a drained bucket
     * (every instance taking each token as it comes back) an ask brings what the refusal lacked
     * seldom, and waiting for it held every refusal of the instance behind the ask's round trips.
     * Nothing is taken: the decision is made again through {@link #claim}.
     */
    synchronized boolean covers(long tokens, BucketSpec spec, long now, long maxWaitNanos) {
        long end = System.nanoTime() + maxWaitNanos;
        while (asking && !dead && lastAskFull) {
            long left = end - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            try {
                wait(Math.max(1, left / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return batch >= tokens && now < deadline && spec.equals(batchSpec);
    }

    /** Tokens a decision took from generation {@code from} come back: false when that batch was retired. */
    synchronized boolean giveBack(long tokens, long from) {
        if (dead || from != generation) {
            return false;
        }
        batch += tokens;
        trimLocked(Objects.requireNonNull(batchSpec, "a batch that served has a spec"));
        return true;
    }

    /** Sends back what the batch holds above its ceiling: what keeps the published bound of held tokens. */
    private void trimLocked(BucketSpec spec) {
        if (batch > ceiling) {
            returns.accept(Adjustment.ofTokens(key, spec, batch - ceiling));
            batch = ceiling;
        }
    }

    /** The bucket as this instance sees it: as the store last answered, plus the batch. */
    synchronized ConsumeResult view(BucketSpec spec, long now) {
        long[] remaining = new long[spec.limits().size()];
        long[] seen = standing;
        for (int k = 0; k < remaining.length; k++) {
            long base = seen != null && k < seen.length ? seen[k] : 0;
            remaining[k] = Math.min(spec.limits().get(k).capacity(), base + batch);
        }
        long toFull = Math.max(0, standingToFull - (now - standingAt));
        return ConsumeResult.taken(remaining, 0, toFull);
    }

    /** Retires the batch when its deadline passed; marks the share dead when quiet. The tokens retired. */
    synchronized long expire(long now) {
        long left = 0;
        if (batch > 0 && now >= deadline) {
            left = batch;
            retireLocked();
        }
        if (batch == 0 && !asking && now - lastSeen > 2 * SECOND) {
            dead = true;
        }
        return left;
    }

    synchronized void retire() {
        retireLocked();
    }

    synchronized void drop() {
        batch = 0;
        generation++;
    }

    synchronized long held() {
        return batch;
    }

    private void retireLocked() {
        if (batch > 0) {
            returns.accept(Adjustment.ofTokens(key, Objects.requireNonNull(batchSpec, "a batch has a spec"),
                    batch));
        }
        batch = 0;
        generation++;
    }

    /**
     * The largest batch this instance takes of a bucket of {@code capacity}, as {@link TokenLeasing}
     * bounds it: its published bound of tokens held by one-token requests, per instance. Below 2 it
     * is 0, as the bound is, and no batch is asked for either way.
     */
    private long batchCap(long capacity, int instances) {
        return settings.heldAtMost(capacity, instances, 1) / Math.max(1, instances);
    }

    /** The smallest capacity of the bucket's limits. */
    private static long capacity(BucketSpec spec) {
        long capacity = Long.MAX_VALUE;
        for (int k = 0; k < spec.limits().size(); k++) {
            capacity = Math.min(capacity, spec.limits().get(k).capacity());
        }
        return capacity;
    }

    private static long ceilDiv(long a, long b) {
        return -Math.floorDiv(-a, b);
    }
}
