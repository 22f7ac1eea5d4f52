package dev.quota.core;

/**
 * How a response whose cost grows while it streams is charged ({@link RunningCost}): in batches
 * drawn from its plan ahead of what it has written, and cut off once its customer has nothing left.
 *
 * <p>The batch of a stream is a twentieth of the smallest capacity among the plan limits its
 * decision charged, at least 1 and at most {@link #maxBatch()}: on a plan of 500 an hour a stream
 * draws 25 tokens per store call (one call per 25 rows, 4 %); on a plan of a million a day, 1,000
 * (the default ceiling: one call per 1,000 rows). A stream holds at most one batch that it has not
 * used yet; it gives it back when it ends. A stream is cut off when its customer's plan cannot give
 * the next token and the stream has run {@link #debtCap()} tokens on credit.
 *
 * <p>In the config file, section {@code streams}:
 * <pre>{@code
 * streams:
 *   maxBatch: 1000   # the most tokens one store call draws for a stream (default 1000)
 *   debtCap: 0       # tokens a stream may run into debt once its customer has nothing left (default 0)
 * }</pre>
 *
 * @param maxBatch the most tokens a stream draws in one store call, {@code >= 1}; default 1,000
 * @param debtCap  how far below zero a stream may take its customer's plan, {@code >= 0}; default 0:
 *                 a stream ends when its customer has nothing left
 */
public record Streams(long maxBatch, long debtCap) {

    /** The defaults: batches of at most 1,000 tokens, no debt. */
    public static final Streams DEFAULT = new Streams(1_000, 0);

    /** The share of the smallest plan capacity one batch draws: a twentieth. */
    static final long CAPACITY_SHARE = 20;

    /** @throws IllegalArgumentException if maxBatch is below 1 or debtCap is negative */
    public Streams {
        if (maxBatch < 1) {
            throw new IllegalArgumentException("maxBatch must be >= 1 but was " + maxBatch);
        }
        if (debtCap < 0) {
            throw new IllegalArgumentException("debtCap must be >= 0 but was " + debtCap);
        }
    }

    /**
     * The batch of a stream whose smallest plan limit holds {@code capacity} tokens:
     * {@code clamp(capacity / 20, 1, maxBatch)}. Capacity 500: 25; capacity 10: 1; capacity 10^6: 1,000.
     */
    public long batch(long capacity) {
        return Math.max(1, Math.min(maxBatch, capacity / CAPACITY_SHARE));
    }
}
