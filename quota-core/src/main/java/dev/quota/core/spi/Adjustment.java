package dev.quota.core.spi;

import java.util.Objects;

/**
 * A change of one bucket after the fact, whatever it holds: one of
 * <ul>
 *   <li>tokens ({@link #ofTokens}): given back (never above capacity), or taken even when the
 *       bucket lacks them, leaving a debt the refill pays before the bucket admits again. What a
 *       settle of a cost known only afterwards applies to the buckets that were charged its
 *       estimate: an export estimated at 10 that wrote 37 rows takes 27 more, one that wrote 4
 *       gives 6 back;</li>
 *   <li>a lease given back ({@link #leaseRelease}): the slot of a lease set that a running request
 *       held is free again (what {@link QuotaStore#releaseLease} does).</li>
 * </ul>
 * A store applies either with {@link BucketMath#adjust}.
 */
public final class Adjustment {

    private final BucketKey key;
    private final BucketSpec spec;
    private final long tokens;
    private final long lease;

    private Adjustment(BucketKey key, BucketSpec spec, long tokens, long lease) {
        this.key = Objects.requireNonNull(key, "key");
        this.spec = Objects.requireNonNull(spec, "spec");
        this.tokens = tokens;
        this.lease = lease;
    }

    /**
     * {@code tokens} given back to the bucket when positive, taken regardless when negative (see
     * {@link BucketMath#addTokens}).
     *
     * @throws IllegalArgumentException if {@code tokens} is 0 or {@link Long#MIN_VALUE}, or
     *                                  {@code spec} is a lease set (see {@link #leaseRelease})
     */
    public static Adjustment ofTokens(BucketKey key, BucketSpec spec, long tokens) {
        if (tokens == 0 || tokens == Long.MIN_VALUE) {
            throw new IllegalArgumentException("tokens must be non-zero and above Long.MIN_VALUE but was " + tokens);
        }
        if (spec.leases()) {
            throw new IllegalArgumentException("a lease set holds leases, not tokens: give a lease back with"
                    + " releaseLease (Adjustment.leaseRelease), not " + tokens + " tokens");
        }
        return new Adjustment(key, spec, tokens, 0);
    }

    /**
     * The lease {@code lease} ({@link ConsumeResult#lease()}) given back to the lease set
     * {@code key} (see {@link BucketMath#releaseLease}).
     *
     * @throws IllegalArgumentException if {@code spec} is not a lease set, or {@code lease} is 0
     *                                  (a take that held no lease)
     */
    public static Adjustment leaseRelease(BucketKey key, BucketSpec spec, long lease) {
        if (!spec.leases()) {
            throw new IllegalArgumentException("only a lease set has leases to give back, not " + key);
        }
        if (lease == 0) {
            throw new IllegalArgumentException("lease must name a lease taken (non-zero) but was 0");
        }
        return new Adjustment(key, spec, 0, lease);
    }

    /** The bucket. */
    public BucketKey key() {
        return key;
    }

    /** Its limits and config version. */
    public BucketSpec spec() {
        return spec;
    }

    /** The tokens given back (positive) or taken regardless (negative); 0 for a lease given back. */
    public long tokens() {
        return tokens;
    }

    /** The lease given back ({@link ConsumeResult#lease()}); 0 for a change of tokens. */
    public long lease() {
        return lease;
    }

    /** Whether this gives a lease back ({@link #leaseRelease}) rather than changing tokens. */
    public boolean releasesLease() {
        return lease != 0;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Adjustment a && a.key.equals(key) && a.spec.equals(spec) && a.tokens == tokens
                && a.lease == lease;
    }

    @Override
    public int hashCode() {
        return Objects.hash(key, spec, tokens, lease);
    }

    @Override
    public String toString() {
        return releasesLease() ? "Adjustment[" + key + ", lease " + lease + " given back]"
                : "Adjustment[" + key + ", " + tokens + " tokens]";
    }
}
