package dev.quota.bench;

import org.redisson.api.RedissonClient;

/**
 * What a scenario asks of every limiter: the buckets a decision takes from, and the most they may
 * admit. {@link LimitSpec} is the one-bucket workload; {@link TransferLimits} the demo's transfer
 * decision over five buckets.
 */
interface Workload {

    /** A contender of {@code kind} deciding this workload on {@code client}, its keys under {@code namespace}. */
    Contender create(Kind kind, RedissonClient client, String namespace);

    /**
     * What {@code kind} admitted to customers {@code from .. to-1} against what the limits allow over
     * {@code windowNanos} (the window ending now).
     */
    Tally.Exactness exactness(Kind kind, Tally tally, long windowNanos, int from, int to);

    /**
     * The bucket keys one customer's decisions touch (a key every customer shares not counted):
     * what a store that remembers keys remembers per customer.
     */
    default int keysPerCustomer(Kind kind) {
        return 1;
    }
}
