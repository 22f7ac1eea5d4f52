package dev.quota.core.spi;

/**
 * What a store did with one take of a consume, or what one bucket holds ({@link QuotaStore#peek}).
 *
 * <p>A take that was not taken reports the bucket as it stands: its remaining tokens, and how long
 * until it alone could give the take's tokens (zero when it could now: another take refused the
 * consume). A take charged its refusal tokens on a refused consume reports them taken, and
 * whether its own bucket had the take's tokens: with 5 tokens left, a take of 10 (refusal 1)
 * reports {@code tokensTaken}, 4 remaining, and the wait until 10 will be there.
 *
 * @param tokensTaken whether tokens were taken from this bucket (from every limit of it): the take's
 *                    tokens when the consume was admitted, its refusal tokens when it was refused, so
 *                    true for a refused take that was charged; {@link #sufficient()} says whether the
 *                    bucket had the take's own tokens
 * @param remaining   tokens left in each limit, in {@link BucketSpec#limits()} order, after this take;
 *                    owned by the caller, not copied
 * @param nanosToWait 0 when this bucket alone had the take's tokens; else nanoseconds until it
 *                    would ({@link Long#MAX_VALUE} when it never can: more than its capacity)
 * @param nanosToFull nanoseconds until every limit of the bucket is full again
 * @param lease       for a take from a lease set ({@link BucketSpec#leases()}) that held a slot: the
 *                    lease's deadline in the store's clock nanoseconds, which gives it back
 *                    ({@link QuotaStore#releaseLease}); else 0
 * @param extraTaken  the tokens taken beyond the take's own ({@link Take#extra()}): at most what it
 *                    asked for, only on an admitted consume; {@code remaining} is counted after them
 */
public record ConsumeResult(boolean tokensTaken,
                            // owned by the caller, not copied (see @param remaining): no copy per take on the
                            // decision path; a result is never compared
                            @SuppressWarnings("ArrayRecordComponent") long[] remaining,
                            long nanosToWait, long nanosToFull, long lease, long extraTaken) {

    /** A result that holds no lease. */
    public ConsumeResult(boolean tokensTaken, long[] remaining, long nanosToWait, long nanosToFull) {
        this(tokensTaken, remaining, nanosToWait, nanosToFull, 0, 0);
    }

    /** A result that took no extra tokens. */
    public ConsumeResult(boolean tokensTaken, long[] remaining, long nanosToWait, long nanosToFull, long lease) {
        this(tokensTaken, remaining, nanosToWait, nanosToFull, lease, 0);
    }

    /** Whether this bucket alone had enough tokens for its take. */
    public boolean sufficient() {
        return nanosToWait == 0;
    }
}
