package dev.quota.redis.internal.engine;

import dev.quota.core.internal.BucketArithmetic;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.Take;
import io.github.bucket4j.distributed.remote.RemoteBucketState;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

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
        int n = takes.size();
        // the round's arrays, for this compute only: jobs are computed one at a time
        Cell[] mine = round.jobCells(n);
        RemoteBucketState[] states = round.jobStates(n);
        for (int i = 0; i < n; i++) {
            mine[i] = round.cell(key(i));
            // a state parsed for this round is the cell's alone: its tokens are taken from it in
            // place; a shared one (the limit every customer shares, a hot key) is given as a copy
            RemoteBucketState state = mine[i].state;
            states[i] = state == null || mine[i].owned ? state : state.copy();
        }
        List<ConsumeResult> results = BucketArithmetic.decideOwned(takes, states, round.now());
        for (int i = 0; i < n; i++) {
            RemoteBucketState after = states[i];
            if (after != null) {
                mine[i].write(after, round.expiry());
            }
        }
        Arrays.fill(mine, 0, n, null); // nothing kept past the round
        Arrays.fill(states, 0, n, null);
        answer(results);
    }

    /**
     * A plain take: the job admitted with every take enforced (no shadow take, whose tokens depend
     * on the others'), and the key taken from once, of its take's tokens only (no extra, no lease
     * set): those tokens are then all the job changes on the key, and taken from any state that
     * holds them, the job is admitted as it was computed (its other keys hold what was assumed).
     */
    @Override
    @Nullable Take plainTake(String key) {
        Object computed = computed();
        if (computed == null) {
            return null;
        }
        List<ConsumeResult> results = results(computed);
        Take plain = null;
        for (int i = 0; i < takes.size(); i++) {
            Take take = takes.get(i);
            ConsumeResult result = results.get(i);
            if (take.shadow() || !result.tokensTaken()) {
                return null;
            }
            if (key.equals(key(i))) {
                if (plain != null || take.extra() > 0 || take.spec().leases() || result.extraTaken() > 0
                        || result.lease() != 0) {
                    return null;
                }
                plain = take;
            }
        }
        return plain;
    }

    /**
     * The take's answer as Bucket4j's consume on what the key held would give it: the written
     * state is that state less the tokens at its own refill time, which refilled to now is what
     * refill-then-consume leaves (no refill reached capacity: {@link dev.quota.redis.internal.encoding.StoredTake}).
     */
    @Override
    void tookFrom(String key, RemoteBucketState written, long nowNanos) {
        List<ConsumeResult> results = new ArrayList<>(results(Objects.requireNonNull(computed(),
                "a job sent is computed")));
        for (int i = 0; i < takes.size(); i++) {
            if (key.equals(key(i))) {
                results.set(i, BucketArithmetic.peek(written, takes.get(i).spec(), nowNanos));
            }
        }
        answer(results);
    }

    /** The outcome of a consume job ({@link CasJob#outcome}), as its {@link #compute} answers it. */
    @SuppressWarnings("unchecked") // compute answers a List<ConsumeResult>, nothing else
    static List<ConsumeResult> results(Object outcome) {
        return (List<ConsumeResult>) outcome;
    }
}
