package dev.quota.core.spi;

/**
 * What a store did with one take of a consume, or what one bucket holds ({@link QuotaStore#peek}).
 *
 * <p>A take that was not taken reports the bucket as it stands: its remaining tokens, and how long
 * until it alone could give the take's tokens (zero when it could now: another take refused the
 * consume).
 *
 * @param consumed    whether this take's tokens were taken (from every limit of the bucket)
 * @param remaining   tokens left in each limit, in {@link BucketSpec#limits()} order, after this take
 *                    when taken; owned by the caller, not copied
 * @param nanosToWait when not consumed: nanoseconds until this bucket could give the take's tokens
 *                    ({@link Long#MAX_VALUE} when it never can: more than its capacity); else 0
 * @param nanosToFull nanoseconds until every limit of the bucket is full again
 */
public record ConsumeResult(boolean consumed, long[] remaining, long nanosToWait, long nanosToFull) {

    /** Whether this bucket alone had enough tokens for its take. */
    public boolean sufficient() {
        return consumed || nanosToWait == 0;
    }
}
