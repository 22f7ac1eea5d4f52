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
    /** Whether a take holds a lease: a lease given back elsewhere frees a slot, so no cached refusal stands. */
    private final boolean leases;

    ConsumeJob(List<Take> takes) {
        this.takes = takes;
        this.keys = new ArrayList<>(takes.size());
        boolean anyLeases = false;
        for (int i = 0; i < takes.size(); i++) {
            Take take = takes.get(i);
            keys.add(take.key().value());
            anyLeases |= take.spec().leases();
        }
        this.leases = anyLeases;
    }

    @Override
    List<String> keys() {
        return keys;
    }

    /**
     * A consume that wrote nothing took nothing: a refusal, which may stand on confirmed states
     * unless it takes a lease: leases given back on other instances raise a lease set, so a
     * refusal by one is always confirmed by Redis.
     */
    @Override
    boolean refusal() {
        return !leases;
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
