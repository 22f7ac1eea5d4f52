package dev.quota.core.spi;

import dev.quota.core.internal.BucketArithmetic;
import dev.quota.core.internal.StateWire;
import io.github.bucket4j.TokensInheritanceStrategy;
import io.github.bucket4j.distributed.remote.RemoteBucketState;
import io.github.bucket4j.distributed.versioning.Version;
import java.util.HashSet;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The bucket arithmetic a store runs on the states it holds: Bucket4j's own commands, so every
 * store computes exactly what a Bucket4j proxy manager would: a missing bucket is created full, a
 * lower config version is replaced keeping usage ({@link TokensInheritanceStrategy#ADDITIVE}),
 * refill and waits are Bucket4j's. The stores only decide where the states live and how they are
 * swapped atomically.
 *
 * <p>Never changes a state it is given: every state it answers is a new object, so a store may
 * keep sharing the states it passes in.
 */
public final class BucketMath {

    /** The serialization format of stored states: Bucket4j's default for its proxy managers. */
    public static final Version WIRE_VERSION = StateWire.WIRE_VERSION;

    private BucketMath() {
    }

    /**
     * One bucket after a consume attempt.
     *
     * @param result the store's answer for this bucket alone
     * @param after  the state with the tokens taken, or null when they were not
     */
    public record Step(ConsumeResult result, @Nullable RemoteBucketState after) {
    }

    /**
     * What a consume of several buckets does: the answer per take, and the states to write (null
     * where a bucket is left as it is).
     */
    public record Outcome(List<ConsumeResult> results,
                          // per take, made by the consume for the store that writes them, never compared; a
                          // list would cost a copy on every consume
                          @SuppressWarnings("ArrayRecordComponent") @Nullable RemoteBucketState[] writes) {
    }

    /**
     * Takes {@code tokens} from the bucket {@code before} (null: it does not exist yet) at
     * {@code nowNanos}; from a lease set, holds that many free slots, and the result names the
     * lease ({@link ConsumeResult#lease()}).
     */
    public static Step consume(@Nullable RemoteBucketState before, BucketSpec spec, long tokens, long nowNanos) {
        return BucketArithmetic.consume(before, spec, tokens, nowNanos);
    }

    /**
     * The bucket as it stands at {@code nowNanos}, without taking anything. For a lease set the
     * remaining tokens are its free slots, and {@code nanosToWait} is the time until the oldest
     * held lease ends (0 when none is held): what an operator's standing shows.
     */
    public static ConsumeResult peek(@Nullable RemoteBucketState state, BucketSpec spec, long nowNanos) {
        return BucketArithmetic.peek(state, spec, nowNanos);
    }

    /**
     * Decides a consume of several buckets (see {@link QuotaStore}): what each bucket gives is
     * {@link ChargeRule}'s answer. A take left untaken reports its bucket as it stands.
     *
     * @param before the state of each take's bucket, null where it does not exist
     */
    public static Outcome decide(List<Take> takes, @Nullable RemoteBucketState[] before, long nowNanos) {
        return BucketArithmetic.decide(takes, before, nowNanos);
    }

    /**
     * The bucket with {@code tokens} given back to every limit, never above capacity; a negative
     * {@code tokens} takes {@code -tokens} from every limit whatever it holds, as Bucket4j's
     * consume-ignoring-rate-limits does: a limit that lacks them goes below zero, a debt the refill
     * pays before the next request is admitted (capacity 10, 3 left, {@code -5}: the limit holds
     * -2, and a request of 1 waits for 3 tokens). Zero leaves the bucket as it is.
     *
     * @throws IllegalArgumentException if {@code spec} is a lease set (see {@link #releaseLease})
     * @throws IllegalStateException    if the debt could never be paid (a refill overflow)
     */
    public static RemoteBucketState addTokens(@Nullable RemoteBucketState state, BucketSpec spec, long tokens,
                                              long nowNanos) {
        return BucketArithmetic.addTokens(state, spec, tokens, nowNanos);
    }

    /**
     * The lease set with the lease {@code lease} ({@link ConsumeResult#lease()}) given back: its
     * slot free again, unless the lease has ended already (then its slot may hold someone else's
     * lease, left alone).
     *
     * @throws IllegalArgumentException if {@code spec} is not a lease set
     */
    public static RemoteBucketState releaseLease(@Nullable RemoteBucketState state, BucketSpec spec, long lease,
                                                 long nowNanos) {
        return BucketArithmetic.releaseLease(state, spec, lease, nowNanos);
    }

    /**
     * The bucket after {@code adjustment}: {@link #releaseLease} for a lease given back, else
     * {@link #addTokens}.
     *
     * @throws IllegalStateException if the debt could never be paid (a refill overflow)
     */
    public static RemoteBucketState adjust(@Nullable RemoteBucketState state, Adjustment adjustment, long nowNanos) {
        return adjustment.releasesLease()
                ? releaseLease(state, adjustment.spec(), adjustment.lease(), nowNanos)
                : addTokens(state, adjustment.spec(), adjustment.tokens(), nowNanos);
    }

    /**
     * Checks that a consume has takes, each of its own bucket.
     *
     * @throws IllegalArgumentException if {@code takes} is empty or a key appears twice
     */
    public static void requireDistinctKeys(List<Take> takes) {
        if (takes.isEmpty()) {
            throw new IllegalArgumentException("a consume needs at least one take");
        }
        if (takes.size() == 1) {
            return;
        }
        if (takes.size() <= 8) {
            // a decision's handful of buckets: compared pairwise, without a set per consume
            for (int i = 1; i < takes.size(); i++) {
                String key = takes.get(i).key().value();
                for (int j = 0; j < i; j++) {
                    if (key.equals(takes.get(j).key().value())) {
                        throw new IllegalArgumentException("bucket " + takes.get(i).key() + " appears twice in one consume");
                    }
                }
            }
            return;
        }
        var seen = new HashSet<String>(takes.size() * 2);
        for (Take take : takes) {
            if (!seen.add(take.key().value())) {
                throw new IllegalArgumentException("bucket " + take.key() + " appears twice in one consume");
            }
        }
    }

    /** The stored form of a state: Bucket4j's, byte for byte ({@link #WIRE_VERSION}), in an array of its exact size. */
    public static byte[] serialize(RemoteBucketState state) {
        return StateWire.write(state);
    }

    /**
     * A state from its stored form. A state whose configuration bytes were seen before shares that
     * configuration object instead of parsing it again.
     *
     * @throws RuntimeException if the bytes are not a bucket state
     */
    public static RemoteBucketState deserialize(byte[] bytes) {
        return StateWire.read(bytes);
    }
}
