package dev.quota.redis.internal.engine;

import dev.quota.core.spi.BucketMath;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.Take;
import io.github.bucket4j.distributed.remote.RemoteBucketState;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** One decision: takes from several buckets, all or none. */
final class ConsumeJob extends CasJob {

    private final List<Take> takes;
    /** Whether a take holds a lease: a lease given back elsewhere frees a slot, so no cached refusal stands. */
    private final boolean leases;

    ConsumeJob(List<Take> takes) {
        this.takes = takes;
        boolean anyLeases = false;
        for (int i = 0; i < takes.size(); i++) {
            anyLeases |= takes.get(i).spec().leases();
        }
        this.leases = anyLeases;
    }

    /** The takes' keys, made when asked (a failure's message): the round reads them by index. */
    @Override
    List<String> keys() {
        List<String> keys = new ArrayList<>(takes.size());
        for (int i = 0; i < takes.size(); i++) {
            keys.add(key(i));
        }
        return keys;
    }

    @Override
    int keyCount() {
        return takes.size();
    }

    @Override
    String key(int i) {
        return takes.get(i).key().value();
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
        if (takes.size() == 1) { // a one-limit decision: its step is its answer and its write
            Cell cell = round.cell(key(0));
            ConsumeResult result;
            RemoteBucketState after;
            if (cell.owned) {
                // a state parsed for this round is the cell's alone: its tokens taken without a
                // copy, the write put in the round's array (no step object)
                RemoteBucketState[] write = round.jobStates(1);
                result = BucketMath.decideInPlace(takes.get(0), cell.state, round.now(), write, 0);
                after = write[0];
                write[0] = null; // nothing kept past the round
            } else {
                BucketMath.Step step = BucketMath.decide(takes.get(0), cell.state, round.now());
                result = step.result();
                after = step.after();
            }
            if (after != null) {
                cell.write(after, round.expiry());
            }
            answer(List.of(result));
            return;
        }
        int n = takes.size();
        // the round's arrays, for this compute only: jobs are computed one at a time
        Cell[] mine = round.jobCells(n);
        RemoteBucketState[] before = round.jobStates(n);
        boolean owned = false;
        for (int i = 0; i < n; i++) {
            mine[i] = round.cell(key(i));
            before[i] = mine[i].state;
            owned |= mine[i].owned;
        }
        BucketMath.Outcome outcome;
        if (owned) {
            // states parsed for this round are the cells' alone: the tokens are taken from them in
            // place; a shared one (the limit every customer shares, a hot key) is given as a copy
            for (int i = 0; i < n; i++) {
                RemoteBucketState state = before[i];
                before[i] = state == null || mine[i].owned ? state : state.copy();
            }
            outcome = BucketMath.decideInPlace(takes, before, round.now());
        } else {
            outcome = BucketMath.decide(takes, before, round.now());
        }
        for (int i = 0; i < n; i++) {
            RemoteBucketState after = outcome.writes()[i];
            if (after != null) {
                mine[i].write(after, round.expiry());
            }
        }
        Arrays.fill(mine, 0, n, null); // nothing kept past the round
        Arrays.fill(before, 0, n, null);
        answer(outcome.results());
    }
}
