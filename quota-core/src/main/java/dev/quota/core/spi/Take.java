package dev.quota.core.spi;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

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
 * <p>A value: equal when every part is. Made by {@link #of(BucketKey, BucketSpec, long)},
 * {@link #of(BucketKey, BucketSpec, long, long)} or {@link #shadow(BucketKey, BucketSpec, long)};
 * {@link #withExtra(long)} and {@link #heldBy(LeaseHolder)} add the optional parts. A part added in
 * a later release gets a default and a method of its own, so a store that makes one keeps compiling.
 */
public final class Take {

    private final BucketKey key;
    private final BucketSpec spec;
    private final long tokens;
    private final long refusalTokens;
    private final boolean shadow;
    private final long extra;
    private final LeaseHolder holder;

    private Take(BucketKey key, BucketSpec spec, long tokens, long refusalTokens, boolean shadow, long extra,
                 LeaseHolder holder) {
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
        this.key = key;
        this.spec = spec;
        this.tokens = tokens;
        this.refusalTokens = refusalTokens;
        this.shadow = shadow;
        this.extra = extra;
        this.holder = holder;
    }

    /**
     * An enforced take that is left alone when the consume is refused: no refusal tokens, no extra
     * tokens, held by {@link LeaseHolder#NONE}.
     *
     * @throws NullPointerException     if {@code key} or {@code spec} is null
     * @throws IllegalArgumentException if {@code tokens < 1}
     */
    public static Take of(BucketKey key, BucketSpec spec, long tokens) {
        return new Take(key, spec, tokens, 0, false, 0, LeaseHolder.NONE);
    }

    /**
     * An enforced take, charged {@code refusalTokens} when the consume is refused (provided every
     * take with refusal tokens has that many itself); no extra tokens, held by
     * {@link LeaseHolder#NONE}. A plan bucket of an export of cost 10 is {@code of(key, spec, 10, 1)}.
     *
     * @throws NullPointerException     if {@code key} or {@code spec} is null
     * @throws IllegalArgumentException if {@code tokens < 1}, or {@code refusalTokens} is negative or
     *                                  above {@code tokens}
     */
    public static Take of(BucketKey key, BucketSpec spec, long tokens, long refusalTokens) {
        return new Take(key, spec, tokens, refusalTokens, false, 0, LeaseHolder.NONE);
    }

    /**
     * A shadow take: this bucket only observes. Its lack of tokens never refuses the consume; it
     * gives its tokens only when every take of the consume has its own, and nothing on a refusal. No
     * extra tokens, held by {@link LeaseHolder#NONE}.
     *
     * @throws NullPointerException     if {@code key} or {@code spec} is null
     * @throws IllegalArgumentException if {@code tokens < 1}
     */
    public static Take shadow(BucketKey key, BucketSpec spec, long tokens) {
        return new Take(key, spec, tokens, 0, true, 0, LeaseHolder.NONE);
    }

    /**
     * This take by {@code holder}: for a lease set, the slot records it and dead holders' slots are
     * freed.
     *
     * @throws NullPointerException if {@code holder} is null
     */
    public Take heldBy(LeaseHolder holder) {
        return new Take(key, spec, tokens, refusalTokens, shadow, extra, holder);
    }

    /**
     * This take asking for up to {@code extra} tokens more when the consume is admitted (see
     * {@link #extra()}); this take itself when it already asks for that many.
     *
     * @throws IllegalArgumentException if {@code extra} is negative, or positive on a shadow take or
     *                                  a lease set
     */
    public Take withExtra(long extra) {
        return extra == this.extra ? this : new Take(key, spec, tokens, refusalTokens, shadow, extra, holder);
    }

    /** The bucket. */
    public BucketKey key() {
        return key;
    }

    /** Its limits and config version. */
    public BucketSpec spec() {
        return spec;
    }

    /** Tokens to take when the consume is admitted, {@code >= 1}. */
    public long tokens() {
        return tokens;
    }

    /**
     * Tokens to take even when the consume is refused (default 0: none), provided every take with
     * refusal tokens has that many itself; at most {@link #tokens()}, and 0 on a shadow take.
     */
    public long refusalTokens() {
        return refusalTokens;
    }

    /**
     * Whether this bucket only observes (default false): its lack of tokens never refuses the
     * consume; it gives its tokens only when every take of the consume has its own, and nothing on a
     * refusal.
     */
    public boolean shadow() {
        return shadow;
    }

    /**
     * Tokens to take beyond {@link #tokens()} when the consume is admitted, as many of them as the
     * bucket still holds then (default 0: none); never part of whether the consume is admitted, and
     * never taken on a refusal ({@link ChargeRule#extra}). The decision asks for them to lease a
     * batch of a hot bucket's tokens in the same store call (see {@link ConsumeResult#extraTaken()}).
     */
    public long extra() {
        return extra;
    }

    /**
     * For a lease set: the instance taking the lease, recorded in its slot, and the instances known
     * dead, whose slots the take frees first ({@link LeaseHolder}); {@link LeaseHolder#NONE} (the
     * default) where no instance registry is wired. Other buckets ignore it.
     */
    public LeaseHolder holder() {
        return holder;
    }

    /** Whether this take is charged when the consume is refused. */
    public boolean chargedOnRefusal() {
        return refusalTokens > 0;
    }

    @Override
    public boolean equals(@Nullable Object o) {
        return o instanceof Take other && tokens == other.tokens && refusalTokens == other.refusalTokens
                && shadow == other.shadow && extra == other.extra && key.equals(other.key)
                && spec.equals(other.spec) && holder.equals(other.holder);
    }

    @Override
    public int hashCode() {
        int h = key.hashCode();
        h = 31 * h + spec.hashCode();
        h = 31 * h + Long.hashCode(tokens);
        h = 31 * h + Long.hashCode(refusalTokens);
        h = 31 * h + Boolean.hashCode(shadow);
        h = 31 * h + Long.hashCode(extra);
        return 31 * h + holder.hashCode();
    }

    @Override
    public String toString() {
        return "Take[key=" + key + ", spec=" + spec + ", tokens=" + tokens + ", refusalTokens=" + refusalTokens
                + ", shadow=" + shadow + ", extra=" + extra + ", holder=" + holder + "]";
    }
}
