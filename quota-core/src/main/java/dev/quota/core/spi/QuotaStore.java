package dev.quota.core.spi;

import java.util.List;

/**
 * Where buckets live. One implementation per backend: Redis (shared by every instance), JCache
 * (a data grid), and the JVM (one instance, or the fallback while the shared store is unavailable).
 *
 * <p>A decision is one {@link #tryConsume(List) consume} of all its buckets. A store takes every
 * take's {@link Take#tokens()} when all of them have enough; otherwise each take's
 * {@link Take#refusalTokens()}, provided every take with refusal tokens has that many; otherwise
 * nothing. A take that asks for {@link Take#extra()} tokens gets as many of them as its bucket
 * still holds once the consume is admitted, reported in {@link ConsumeResult#extraTaken()} (what
 * {@link ChargeRule} says; {@link BucketMath#decide} computes it). A store
 * that can do this atomically across buckets does (the in-JVM store; Redis within one cluster hash
 * slot); one that cannot takes bucket by bucket and gives back what it took when a later bucket
 * refuses ({@link PerBucketStore}), which may refuse a concurrent request early but never admits
 * one too many.
 *
 * <p>Every operation is atomic per bucket across all clients of the store. A bucket that does not
 * exist yet is created full; a stored bucket whose spec version is lower than the one given takes
 * the given limits and keeps its usage. Failures are thrown as {@link dev.quota.core.QuotaStoreException};
 * the caller's failure policy decides what the HTTP client sees.
 */
public interface QuotaStore extends AutoCloseable {

    /**
     * Takes tokens for one decision, as described on {@link QuotaStore}.
     *
     * @param takes at least one take; no key twice
     * @return one result per take, in order
     * @throws IllegalArgumentException if {@code takes} is empty or names a key twice
     * @throws dev.quota.core.QuotaStoreException if the store cannot answer
     */
    List<ConsumeResult> tryConsume(List<Take> takes);

    /**
     * Takes {@code tokens} from one bucket, or nothing: a consume of one take.
     *
     * @throws dev.quota.core.QuotaStoreException if the store cannot answer
     */
    default ConsumeResult tryConsume(BucketKey key, BucketSpec spec, long tokens) {
        return tryConsume(List.of(Take.of(key, spec, tokens))).get(0);
    }

    /**
     * Gives {@code tokens} back to every limit of the bucket, never above capacity: a refund of
     * tokens a decision took. A negative {@code tokens} takes {@code -tokens} from every limit
     * whatever it holds, leaving a debt where it lacks them ({@link BucketMath#addTokens}). One
     * atomic step, as every other operation, so it costs one round trip.
     *
     * @throws IllegalArgumentException if {@code spec} is a lease set ({@link #releaseLease} gives
     *                                  a lease back)
     * @throws dev.quota.core.QuotaStoreException if the store cannot answer
     */
    void addTokens(BucketKey key, BucketSpec spec, long tokens);

    /**
     * Gives back the lease {@code lease} of a lease set ({@link BucketSpec#leases()}), as a take
     * from it answered it ({@link ConsumeResult#lease()}): its slot is free again, unless the lease
     * has ended already (then its slot may hold someone else's lease, left alone)
     * ({@link BucketMath#releaseLease}). One atomic step, so it costs one round trip.
     *
     * @throws IllegalArgumentException if {@code spec} is not a lease set
     * @throws dev.quota.core.QuotaStoreException if the store cannot answer
     */
    void releaseLease(BucketKey key, BucketSpec spec, long lease);

    /**
     * Applies each adjustment as {@link #addTokens} or {@link #releaseLease} does, in one store
     * call where the store can (on Redis one round trip for buckets of one hash slot, on a grid
     * one change per entry). Each bucket's change is atomic; buckets of different slots or entries
     * change one after the other. The default calls {@link #addTokens} or {@link #releaseLease}
     * per adjustment.
     *
     * @param adjustments at least one; no key twice
     * @throws IllegalArgumentException if {@code adjustments} is empty
     * @throws dev.quota.core.QuotaStoreException if the store cannot answer
     */
    default void adjust(List<Adjustment> adjustments) {
        if (adjustments.isEmpty()) {
            throw new IllegalArgumentException("an adjustment needs at least one bucket");
        }
        for (Adjustment adjustment : adjustments) {
            if (adjustment.releasesLease()) {
                releaseLease(adjustment.key(), adjustment.spec(), adjustment.lease());
            } else {
                addTokens(adjustment.key(), adjustment.spec(), adjustment.tokens());
            }
        }
    }

    /**
     * Reads the bucket without taking anything: the answer of a take of no tokens that passed
     * ({@code tokensTaken} true, {@code nanosToWait} 0), with the bucket's remaining tokens.
     *
     * @throws dev.quota.core.QuotaStoreException if the store cannot answer
     */
    ConsumeResult peek(BucketKey key, BucketSpec spec);

    /**
     * Deletes the bucket: its next use starts full.
     *
     * @throws dev.quota.core.QuotaStoreException if the store cannot answer
     */
    void reset(BucketKey key);

    /** A one-line description for logs and start-up banners, e.g. {@code redis standalone 127.0.0.1:6379}. */
    String describe();

    /** Releases connections and threads the store owns; does not shut down a client it was given. */
    @Override
    void close();
}
