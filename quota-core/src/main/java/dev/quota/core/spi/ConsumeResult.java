package dev.quota.core.spi;

import java.util.Arrays;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What a store did with one take of a consume, or what one bucket holds ({@link QuotaStore#peek}).
 *
 * <p>A take that was not taken reports the bucket as it stands: its remaining tokens, and how long
 * until it alone could give the take's tokens (zero when it could now: another take refused the
 * consume). A take charged its refusal tokens on a refused consume reports them taken, and
 * whether its own bucket had the take's tokens: with 5 tokens left, a take of 10 (refusal 1)
 * reports {@code tokensTaken}, 4 remaining, and the wait until 10 will be there.
 *
 * <p>A value: equal when every part is, the remaining tokens compared element by element. Made by
 * {@link #taken(long[], long, long)}, {@link #taken(long[], long, long, long, long)} (with a lease or
 * extra tokens) or {@link #notTaken(long[], long, long)}. A part added in a later release gets a
 * default and a factory of its own, so a store that makes one keeps compiling.
 */
public final class ConsumeResult {

    private final boolean tokensTaken;
    // owned by the caller, not copied (see remaining()): no copy per take on the decision path
    private final long[] remaining;
    private final long nanosToWait;
    private final long nanosToFull;
    private final long lease;
    private final long extraTaken;

    private ConsumeResult(boolean tokensTaken, long[] remaining, long nanosToWait, long nanosToFull, long lease,
                          long extraTaken) {
        this.tokensTaken = tokensTaken;
        this.remaining = Objects.requireNonNull(remaining, "remaining");
        this.nanosToWait = nanosToWait;
        this.nanosToFull = nanosToFull;
        this.lease = lease;
        this.extraTaken = extraTaken;
    }

    /**
     * Tokens were taken from this bucket, holding no lease and no extra tokens.
     *
     * @param remaining   tokens left in each limit after this take (see {@link #remaining()}); not copied
     * @param nanosToWait 0 when this bucket alone had the take's tokens; else nanoseconds until it would
     * @param nanosToFull nanoseconds until every limit of the bucket is full again
     * @throws NullPointerException if {@code remaining} is null
     */
    public static ConsumeResult taken(long[] remaining, long nanosToWait, long nanosToFull) {
        return new ConsumeResult(true, remaining, nanosToWait, nanosToFull, 0, 0);
    }

    /**
     * Tokens were taken from this bucket: a lease from a lease set, or extra tokens beyond the take's
     * own, or both. A lease set's take with its slot held until {@code d}: {@code taken(remaining, 0,
     * toFull, d, 0)}; a take of 1 that also took a batch of 40: {@code taken(remaining, 0, toFull, 0, 40)}.
     *
     * @param remaining   tokens left in each limit after this take and its extra tokens (see
     *                    {@link #remaining()}); not copied
     * @param nanosToWait 0 when this bucket alone had the take's tokens; else nanoseconds until it would
     * @param nanosToFull nanoseconds until every limit of the bucket is full again
     * @param lease       the lease's deadline (see {@link #lease()}), or 0
     * @param extraTaken  the tokens taken beyond the take's own (see {@link #extraTaken()}), or 0
     * @throws NullPointerException if {@code remaining} is null
     */
    public static ConsumeResult taken(long[] remaining, long nanosToWait, long nanosToFull, long lease,
                                      long extraTaken) {
        return new ConsumeResult(true, remaining, nanosToWait, nanosToFull, lease, extraTaken);
    }

    /**
     * Nothing was taken from this bucket (the consume was refused, or this is a peek that found it so):
     * no lease, no extra tokens.
     *
     * @param remaining   tokens left in each limit (see {@link #remaining()}); not copied
     * @param nanosToWait 0 when this bucket alone had the take's tokens; else nanoseconds until it would
     * @param nanosToFull nanoseconds until every limit of the bucket is full again
     * @throws NullPointerException if {@code remaining} is null
     */
    public static ConsumeResult notTaken(long[] remaining, long nanosToWait, long nanosToFull) {
        return new ConsumeResult(false, remaining, nanosToWait, nanosToFull, 0, 0);
    }

    /**
     * Whether tokens were taken from this bucket (from every limit of it): the take's tokens when the
     * consume was admitted, its refusal tokens when it was refused, so true for a refused take that
     * was charged; {@link #sufficient()} says whether the bucket had the take's own tokens.
     */
    public boolean tokensTaken() {
        return tokensTaken;
    }

    /**
     * Tokens left in each limit, in {@link BucketSpec#limits()} order, after this take; owned by the
     * caller, not copied.
     */
    public long[] remaining() {
        return remaining;
    }

    /**
     * 0 when this bucket alone had the take's tokens; else nanoseconds until it would
     * ({@link Long#MAX_VALUE} when it never can: more than its capacity).
     */
    public long nanosToWait() {
        return nanosToWait;
    }

    /** Nanoseconds until every limit of the bucket is full again. */
    public long nanosToFull() {
        return nanosToFull;
    }

    /**
     * For a take from a lease set ({@link BucketSpec#leases()}) that held a slot: the lease's deadline
     * in the store's clock nanoseconds, which gives it back ({@link QuotaStore#releaseLease}); else 0
     * (the default).
     */
    public long lease() {
        return lease;
    }

    /**
     * The tokens taken beyond the take's own ({@link Take#extra()}): at most what it asked for, only
     * on an admitted consume; {@link #remaining()} is counted after them. Default 0.
     */
    public long extraTaken() {
        return extraTaken;
    }

    /** Whether this bucket alone had enough tokens for its take. */
    public boolean sufficient() {
        return nanosToWait == 0;
    }

    @Override
    public boolean equals(@Nullable Object o) {
        return o instanceof ConsumeResult other && tokensTaken == other.tokensTaken
                && nanosToWait == other.nanosToWait && nanosToFull == other.nanosToFull && lease == other.lease
                && extraTaken == other.extraTaken && Arrays.equals(remaining, other.remaining);
    }

    @Override
    public int hashCode() {
        int h = Boolean.hashCode(tokensTaken);
        h = 31 * h + Arrays.hashCode(remaining);
        h = 31 * h + Long.hashCode(nanosToWait);
        h = 31 * h + Long.hashCode(nanosToFull);
        h = 31 * h + Long.hashCode(lease);
        return 31 * h + Long.hashCode(extraTaken);
    }

    @Override
    public String toString() {
        return "ConsumeResult[tokensTaken=" + tokensTaken + ", remaining=" + Arrays.toString(remaining)
                + ", nanosToWait=" + nanosToWait + ", nanosToFull=" + nanosToFull + ", lease=" + lease
                + ", extraTaken=" + extraTaken + "]";
    }
}
