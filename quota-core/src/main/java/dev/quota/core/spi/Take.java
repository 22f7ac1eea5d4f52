package dev.quota.core.spi;

import java.util.Objects;

/**
 * One bucket of a consume: where it is, what it enforces, and what the decision takes from it when
 * it is admitted, when it is refused, and whether its own lack of tokens refuses it. A store
 * applies these figures as {@link ChargeRule} says; it never decides them.
 *
 * <p>An export (rule cost 10) by a free customer is one consume of three takes: the customer's
 * plan bucket (10 tokens; 1 when refused), its calendar-day bucket (10; 1 when refused) and its
 * export bucket (1). When the export bucket is empty, the plan buckets still give 1 token each: the
 * request was made. Were the export limit in shadow mode, its take would be a shadow take: an empty
 * export bucket would leave the consume admitted, and the export bucket untouched.
 *
 * @param key           the bucket
 * @param spec          its limits and config version
 * @param tokens        tokens to take when the consume is admitted, {@code >= 1}
 * @param refusalTokens tokens to take even when the consume is refused (0: none), provided every take
 *                      with refusal tokens has that many itself; at most {@code tokens}
 * @param shadow        whether this bucket only observes: its lack of tokens never refuses the
 *                      consume; it gives its tokens only when every take of the consume has its own,
 *                      and nothing on a refusal
 * @param extra         tokens to take beyond {@code tokens} when the consume is admitted, as many of them
 *                      as the bucket still holds then (0: none); never part of whether the consume is
 *                      admitted, and never taken on a refusal ({@link ChargeRule#extra}). The decision
 *                      asks for them to lease a batch of a hot bucket's tokens in the same store call
 *                      (see {@link ConsumeResult#extraTaken()})
 * @param holder        for a lease set: the instance taking the lease, recorded in its slot, and the
 *                      instances known dead, whose slots the take frees first ({@link LeaseHolder});
 *                      {@link LeaseHolder#NONE} where no instance registry is wired. Other buckets
 *                      ignore it
 */
public record Take(BucketKey key, BucketSpec spec, long tokens, long refusalTokens, boolean shadow, long extra,
                   LeaseHolder holder) {

    /**
     * @throws IllegalArgumentException if {@code tokens < 1}, refusalTokens is negative or above
     *                                  tokens, a shadow take has refusal tokens, or {@code extra} is
     *                                  negative, or positive on a shadow take or a lease set
     */
    public Take {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(spec, "spec");
        Objects.requireNonNull(holder, "holder");
        if (tokens < 1) {
            throw new IllegalArgumentException("tokens must be >= 1 but was " + tokens);
        }
        if (refusalTokens < 0 || refusalTokens > tokens) {
            throw new IllegalArgumentException("refusalTokens must be 0 to " + tokens + " but was " + refusalTokens);
        }
        if (shadow && refusalTokens > 0) {
            throw new IllegalArgumentException("a shadow take is never charged on refusal, but refusalTokens was "
                    + refusalTokens);
        }
        if (extra < 0) {
            throw new IllegalArgumentException("extra must be >= 0 but was " + extra);
        }
        if (extra > 0 && (shadow || spec.leases())) {
            throw new IllegalArgumentException("extra tokens are taken from an enforced rate limit only, but "
                    + (shadow ? "a shadow take" : "a lease set") + " asked for " + extra);
        }
    }

    /**
     * A take without extra tokens and without a {@link LeaseHolder}: a lease it holds is kept until
     * given back or its deadline.
     */
    public Take(BucketKey key, BucketSpec spec, long tokens, long refusalTokens, boolean shadow) {
        this(key, spec, tokens, refusalTokens, shadow, 0, LeaseHolder.NONE);
    }

    /** An enforced take: its lack of tokens refuses the consume. */
    public Take(BucketKey key, BucketSpec spec, long tokens, long refusalTokens) {
        this(key, spec, tokens, refusalTokens, false, 0, LeaseHolder.NONE);
    }

    /** An enforced take that is left alone when the consume is refused. */
    public static Take of(BucketKey key, BucketSpec spec, long tokens) {
        return new Take(key, spec, tokens, 0, false, 0, LeaseHolder.NONE);
    }

    /** This take by {@code holder}: for a lease set, the slot records it and dead holders' slots are freed. */
    public Take heldBy(LeaseHolder holder) {
        return new Take(key, spec, tokens, refusalTokens, shadow, extra, holder);
    }

    /** This take asking for up to {@code extra} tokens more when the consume is admitted. */
    public Take withExtra(long extra) {
        return extra == this.extra ? this : new Take(key, spec, tokens, refusalTokens, shadow, extra, holder);
    }

    /** Whether this take is charged when the consume is refused. */
    public boolean chargedOnRefusal() {
        return refusalTokens > 0;
    }
}
