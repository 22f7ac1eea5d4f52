package dev.quota.core.spi;

import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A consume over buckets that cannot be changed in one atomic step (buckets in different Redis
 * Cluster slots, or a store that works bucket by bucket): each group of takes is consumed
 * atomically on its own, then what the whole consume must not keep is given back.
 *
 * <p>The outcome is the one an atomic store would reach, except that between taking and giving
 * back, a concurrent request may find a bucket short and be refused; nothing is ever admitted that
 * an atomic store would refuse. Each group must answer as an atomic consume of its takes does
 * (refusal tokens included), which {@link BucketMath#decide} computes.
 */
public final class SplitConsume {

    private static final Logger log = LoggerFactory.getLogger(SplitConsume.class);

    private SplitConsume() {
    }

    /** Consumes groups of takes, each atomically, with the semantics of {@link dev.quota.core.spi.QuotaStore#tryConsume(List)}. */
    public interface Groups {
        /** One list of results per group, in order; may run the groups in parallel. */
        List<List<ConsumeResult>> consume(List<List<Take>> groups);

        /** Gives back what a group took from one bucket: its tokens, or the lease it holds. */
        void giveBack(Adjustment adjustment);
    }

    /**
     * Consumes {@code takes}, split into {@code groups} (indexes into {@code takes}), with the
     * semantics of an atomic consume.
     */
    public static List<ConsumeResult> run(List<Take> takes, List<int[]> groups, Groups store) {
        List<List<Take>> split = new ArrayList<>(groups.size());
        for (int[] group : groups) {
            List<Take> part = new ArrayList<>(group.length);
            for (int i : group) {
                part.add(takes.get(i));
            }
            split.add(part);
        }
        List<List<ConsumeResult>> answers = store.consume(split);
        ConsumeResult[] results = new ConsumeResult[takes.size()];
        long[] took = new long[takes.size()]; // what each group's atomic consume took from each bucket
        for (int g = 0; g < groups.size(); g++) {
            int[] group = groups.get(g);
            List<Take> part = split.get(g);
            List<ConsumeResult> answer = answers.get(g);
            boolean groupAdmitted = ChargeRule.admitted(part, j -> answer.get(j).sufficient());
            for (int j = 0; j < group.length; j++) {
                results[group[j]] = answer.get(j);
                Take take = part.get(j);
                took[group[j]] = !answer.get(j).tokensTaken() ? 0
                        : groupAdmitted ? take.tokens() + answer.get(j).extraTaken() : take.refusalTokens();
            }
        }
        // what the whole consume takes, by the rule every store applies; each bucket's own answer
        // says whether it had the take's tokens, and a charged one whether it gave its refusal tokens
        long[] keep = ChargeRule.taken(takes, i -> results[i].sufficient(), i -> results[i].tokensTaken());
        if (ChargeRule.admitted(takes, i -> results[i].sufficient())) {
            for (int i = 0; i < results.length; i++) {
                keep[i] += results[i].extraTaken(); // taken only by an admitted group: kept when the whole is
            }
        }
        for (int i = 0; i < results.length; i++) {
            long back = took[i] - keep[i];
            if (back > 0) {
                Take take = takes.get(i);
                giveBack(store, returning(take, results[i], back));
                results[i] = givenBack(results[i], take, back, keep[i] > 0);
            }
        }
        return List.of(results);
    }

    /** One group per take: for a store that works bucket by bucket. */
    public static List<int[]> oneGroupPerTake(int takes) {
        List<int[]> groups = new ArrayList<>(takes);
        for (int i = 0; i < takes; i++) {
            groups.add(new int[] {i});
        }
        return groups;
    }

    /**
     * What returns {@code tokens} a take took ({@code taken} its answer): those tokens; for a lease
     * set, the lease the take holds.
     */
    static Adjustment returning(Take take, ConsumeResult taken, long tokens) {
        return take.spec().leases() ? Adjustment.leaseRelease(take.key(), take.spec(), taken.lease())
                : Adjustment.ofTokens(take.key(), take.spec(), tokens);
    }

    private static void giveBack(Groups store, Adjustment adjustment) {
        try {
            store.giveBack(adjustment);
        } catch (RuntimeException e) {
            // the decision stands; the bucket stays short by these tokens (or this lease) until it refills
            log.warn("could not give back {}: {}", adjustment, e.toString());
        }
    }

    private static ConsumeResult givenBack(ConsumeResult taken, Take take, long back, boolean stillCharged) {
        long[] remaining = taken.remaining().clone();
        for (int i = 0; i < remaining.length; i++) {
            remaining[i] = Math.min(take.spec().limits().get(i).capacity(), remaining[i] + back);
        }
        return stillCharged ? ConsumeResult.taken(remaining, taken.nanosToWait(), taken.nanosToFull())
                : ConsumeResult.notTaken(remaining, taken.nanosToWait(), taken.nanosToFull());
    }
}
