package dev.quota.core.spi;

import java.util.ArrayList;
import java.util.List;

/**
 * A base for stores that change one bucket, or one group of buckets, at a time (a JCache entry, a
 * database row): they implement {@link #consumeOne}, and where several buckets share one atomic
 * step, {@link #groups} and {@link #consumeGroup}. A consume over several groups takes each in turn
 * and gives back what the whole consume must not keep ({@link QuotaStore}'s contract).
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

    /**
     * The groups of {@code takes} (indexes into it, every index once) this store consumes each in
     * one atomic step; by default one group per take.
     *
     * @param takes at least two takes, no key twice
     * @return the groups, each non-empty
     */
    protected List<int[]> groups(List<Take> takes) {
        return SplitConsume.oneGroupPerTake(takes.size());
    }

    /**
     * Consumes one group of {@link #groups} atomically, as {@link QuotaStore#tryConsume} consumes
     * the group alone; by default the group's one take by {@link #consumeOne}.
     *
     * @param group the takes of one group, in order
     * @return one result per take, in order
     * @throws dev.quota.core.QuotaStoreException if the store cannot answer
     */
    protected List<ConsumeResult> consumeGroup(List<Take> group) {
        if (group.size() != 1) {
            throw new IllegalStateException("a store without groups got a group of " + group.size());
        }
        return List.of(consumeOne(group.get(0)));
    }

    @Override
    public final List<ConsumeResult> tryConsume(List<Take> takes) {
        BucketMath.requireDistinctKeys(takes);
        if (takes.size() == 1) {
            return List.of(consumeOne(takes.get(0)));
        }
        List<int[]> groups = groups(takes);
        if (groups.size() == 1) {
            return consumeGroup(takes);
        }
        return SplitConsume.run(takes, groups, new SplitConsume.Groups() {
            @Override
            public List<List<ConsumeResult>> consume(List<List<Take>> groups) {
                List<List<ConsumeResult>> out = new ArrayList<>(groups.size());
                try {
                    for (List<Take> group : groups) {
                        out.add(consumeGroup(group));
                    }
                } catch (RuntimeException e) {
                    // the store failed half-way: what was taken goes back before the failure policy answers
                    for (int g = 0; g < out.size(); g++) {
                        giveBackTaken(groups.get(g), out.get(g), e);
                    }
                    throw e;
                }
                return out;
            }

            @Override
            public void giveBack(Adjustment adjustment) {
                adjust(List.of(adjustment));
            }
        });
    }

    /** Gives back what one consumed group took, adding a failure to give back to {@code failure}. */
    private void giveBackTaken(List<Take> group, List<ConsumeResult> results, RuntimeException failure) {
        for (int i = 0; i < group.size(); i++) {
            ConsumeResult result = results.get(i);
            if (result.tokensTaken()) {
                Take taken = group.get(i);
                try {
                    adjust(List.of(SplitConsume.returning(taken, result,
                            result.sufficient() ? taken.tokens() + result.extraTaken() : taken.refusalTokens())));
                } catch (RuntimeException ignored) {
                    failure.addSuppressed(ignored);
                }
            }
        }
    }
}
