package dev.quota.core.spi;

import dev.quota.core.internal.BucketMath;
import dev.quota.core.internal.SplitConsume;
import java.util.ArrayList;
import java.util.List;

/**
 * A base for stores that change one bucket at a time (a JCache entry processor, a database row):
 * they implement {@link #consumeOne}, and a consume of several buckets takes each in turn and gives
 * back what the whole consume must not keep ({@link QuotaStore}'s contract).
 */
public abstract class PerBucketStore implements QuotaStore {

    /** For subclasses. */
    protected PerBucketStore() {
    }

    /**
     * Takes {@code take}'s tokens from its bucket, atomically, or nothing.
     *
     * @throws dev.quota.core.QuotaStoreException if the store cannot answer
     */
    protected abstract ConsumeResult consumeOne(Take take);

    @Override
    public final List<ConsumeResult> tryConsume(List<Take> takes) {
        BucketMath.requireDistinctKeys(takes);
        if (takes.size() == 1) {
            return List.of(consumeOne(takes.get(0)));
        }
        return SplitConsume.run(takes, SplitConsume.oneGroupPerTake(takes.size()), new SplitConsume.Groups() {
            @Override
            public List<List<ConsumeResult>> consume(List<List<Take>> groups) {
                List<List<ConsumeResult>> out = new ArrayList<>(groups.size());
                try {
                    for (List<Take> group : groups) {
                        out.add(List.of(consumeOne(group.get(0))));
                    }
                } catch (RuntimeException e) {
                    // the store failed half-way: what was taken goes back before the failure policy answers
                    for (int i = 0; i < out.size(); i++) {
                        if (out.get(i).get(0).consumed()) {
                            Take taken = groups.get(i).get(0);
                            try {
                                addTokens(taken.key(), taken.spec(), taken.tokens());
                            } catch (RuntimeException ignored) {
                                e.addSuppressed(ignored);
                            }
                        }
                    }
                    throw e;
                }
                return out;
            }

            @Override
            public void giveBack(Take take) {
                addTokens(take.key(), take.spec(), take.tokens());
            }
        });
    }
}
