package dev.quota.core.spi;

/**
 * What a store did with one consume.
 *
 * @param consumed       whether the tokens were taken (from every limit of the bucket)
 * @param remaining      tokens left in each limit, in {@link BucketSpec#limits()} order; owned by
 *                       the caller, not copied
 * @param nanosToWait    when not consumed: nanoseconds until the same consume could succeed; else 0
 * @param nanosToFull    nanoseconds until every limit of the bucket is full again
 */
public record ConsumeResult(boolean consumed, long[] remaining, long nanosToWait, long nanosToFull) {
}
