package dev.quota.redis;

import dev.quota.core.spi.BucketMath;
import dev.quota.core.spi.Take;
import io.github.bucket4j.distributed.remote.RemoteBucketState;
import java.util.ArrayList;
import java.util.List;

/** One decision: takes from several buckets, all or none. */
final class ConsumeJob extends CasJob {

    private final List<Take> takes;
    private final List<String> keys;

    ConsumeJob(List<Take> takes) {
        this.takes = takes;
        this.keys = new ArrayList<>(takes.size());
        for (Take take : takes) {
            keys.add(take.key().value());
        }
    }

    @Override
    List<String> keys() {
        return keys;
    }

    /** A consume that wrote nothing took nothing: a refusal. */
    @Override
    boolean refusal() {
        return true;
    }

    @Override
    void compute(CasRound round) {
        Cell[] mine = new Cell[takes.size()];
        RemoteBucketState[] before = new RemoteBucketState[takes.size()];
        for (int i = 0; i < mine.length; i++) {
            mine[i] = round.cell(keys.get(i));
            before[i] = mine[i].state;
        }
        BucketMath.Outcome outcome = BucketMath.decide(takes, before, round.now());
        for (int i = 0; i < mine.length; i++) {
            RemoteBucketState after = outcome.writes()[i];
            if (after != null) {
                mine[i].write(after, round.expiry());
            }
        }
        answer(outcome.results());
    }
}
