package dev.quota.core.spi;

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
     * Consumes one take atomically, as {@link QuotaStore#tryConsume} consumes a list of one: the
     * take's tokens when its bucket has them; else its refusal tokens when it has those (answered
     * as taken, with the wait for the take's tokens after them); else nothing.
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
                        ConsumeResult result = out.get(i).get(0);
                        if (result.tokensTaken()) {
                            Take taken = groups.get(i).get(0);
                            try {
                                addTokens(taken.key(), taken.spec(),
                                        result.sufficient() ? taken.tokens() : taken.refusalTokens());
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
