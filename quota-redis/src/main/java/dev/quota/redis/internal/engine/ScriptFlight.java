package dev.quota.redis.internal.engine;

import dev.quota.core.QuotaStoreException;
import dev.quota.redis.internal.encoding.CasScript;
import dev.quota.core.internal.StateWire;
import dev.quota.core.spi.Take;
import dev.quota.redis.internal.encoding.StateDigest;
import dev.quota.redis.internal.encoding.StoredTake;
import dev.quota.redis.internal.transport.RedisLink;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * The keys of one Redis Cluster slot in one round, the jobs computed on them, and the
 * compare-and-swap script ({@link CasScript}) that checks every key still holds what was assumed
 * and writes the new states with their TTLs.
 */
public final class ScriptFlight extends Flight {

    /**
     * The script's cells, one per key, in a list the round hands out and takes back once the script
     * is settled ({@link CasRound#recycle}): its keys are read through them, with no list of their own.
     */
    final List<Cell> cells;
    /** The round's time, by the store's clock: when what the script confirms was true. */
    private final long now;
    private final ExpirationAfterWriteStrategy expiry;
    /**
     * Its one job (every decision's script when they come one at a time), held without a list, or
     * its list of jobs when it carries several or is added to ({@link #addJob}): one field for
     * either keeps the script at 64 bytes.
     */
    private final Object jobs;
    /** Set when sent ({@link KeysInFlight#enter}): later scripts have larger numbers. */
    long sequence;

    /** A script on {@code cells} for one job. */
    ScriptFlight(long now, ExpirationAfterWriteStrategy expiry, List<Cell> cells, CasJob job) {
        this(now, expiry, cells, (Object) job);
    }

    /** A script on {@code cells} for {@code jobs}, a list it keeps (and {@link #addJob} adds to). */
    ScriptFlight(long now, ExpirationAfterWriteStrategy expiry, List<Cell> cells, List<CasJob> jobs) {
        this(now, expiry, cells, (Object) jobs);
    }

    private ScriptFlight(long now, ExpirationAfterWriteStrategy expiry, List<Cell> cells, Object jobs) {
        this.cells = cells;
        this.now = now;
        this.expiry = expiry;
        this.jobs = jobs;
    }

    void add(Cell cell) {
        cells.add(cell);
    }

    /** Adds a job to a script built with a list of them; before it is sent. */
    @SuppressWarnings("unchecked")
    void addJob(CasJob added) {
        if (jobs instanceof CasJob) {
            throw new IllegalStateException("a script of one job");
        }
        ((List<CasJob>) jobs).add(added);
    }

    /** Valid until the script is settled, when its cells are made over for later rounds. */
    @Override
    int keyCount() {
        return cells.size();
    }

    @Override
    String key(int i) {
        return cells.get(i).key;
    }

    @Override
    int jobCount() {
        return jobs instanceof CasJob ? 1 : ((List<?>) jobs).size();
    }

    @Override
    CasJob job(int i) {
        if (jobs instanceof CasJob one) {
            Objects.checkIndex(i, 1);
            return one;
        }
        return (CasJob) ((List<?>) jobs).get(i);
    }

    @Override
    CompletableFuture<?> send(RedisLink link) {
        // the new states are serialized one after another into this thread's buffer, which the
        // link reads before it returns (the argument is written as the script is sent): no array a state
        StateDigest digest = StateDigest.local();
        digest.startScript();
        // one decision's script may take its tokens from what another instance wrote since, in
        // this try (StoredTake); with several, each answer would depend on the others' order
        CasJob only = jobCount() == 1 ? job(0) : null;
        for (int i = 0; i < cells.size(); i++) {
            Cell cell = cells.get(i);
            cell.writes = false;
            cell.ttlMillis = 0;
            cell.take = null;
            if (cell.dirty && cell.state != null) {
                int at = digest.append(cell.state);
                cell.sending(digest, at);
                Take take = only == null ? null : only.plainTake(cell.key);
                cell.take = take == null ? null
                        : StoredTake.describe(cell.state, digest, at, take.tokens(), take.spec().version(), now);
                ExpirationAfterWriteStrategy strategy = cell.ttl != null ? cell.ttl : expiry;
                // a strategy's 0 or less means no expiry; the script takes 0 for that
                cell.ttlMillis = Math.max(0, strategy.calculateTimeToLiveMillis(cell.state, now));
            }
        }
        return link.compareAndSwap(cells);
    }

    /** Whether the script writes a key (else it only checks what keys hold). */
    private boolean writes() {
        for (int i = 0; i < cells.size(); i++) {
            if (cells.get(i).writes) {
                return true;
            }
        }
        return false;
    }

    /**
     * The script took its one job's tokens from states other instances wrote ({@code took}, each
     * with what it wrote there): those are remembered as what the keys hold, the job's answers on
     * them made over from them, and they count as keys another instance changed.
     */
    private void tookElsewhere(Pipeline pipeline, List<CasScript.Difference> took) {
        List<String> changed = new ArrayList<>(took.size());
        for (CasScript.Difference written : took) {
            String key = cells.get(written.index()).key;
            byte[] bytes = Objects.requireNonNull(written.holds(), "the script answers what it wrote");
            job(0).tookFrom(key, StateWire.read(bytes), now);
            if (!pipeline.flying().disowned(key)) {
                changed.add(key);
            }
            if (pipeline.flying().newest(key, sequence)) {
                pipeline.remember(key, bytes, now, this);
            }
            pipeline.flying().disown(key); // scripts sent behind it expect what it did not write
        }
        pipeline.flying().conflict(changed, pipeline.wall());
    }

    private static boolean tookFrom(List<CasScript.Difference> took, int index) {
        for (CasScript.Difference written : took) {
            if (written.index() == index) {
                return true;
            }
        }
        return false;
    }

    /**
     * Answers the jobs when the script wrote; when keys differed, remembers what they hold and
     * computes the jobs again. A failed script voids what was known of its keys: when it failed
     * because a key holds another type, the keys are repaired and the jobs computed again; else
     * its decisions fail, in doubt when it wrote, because it may have run after all.
     */
    @Override
    @SuppressWarnings("unchecked")
    void settle(Pipeline pipeline) {
        List<Object> answer;
        try {
            answer = Flight.outcome((CompletableFuture<List<Object>>) reply(), key(0), pipeline.timeoutNanos());
        } catch (QuotaStoreException e) {
            for (int i = 0; i < cells.size(); i++) {
                String key = cells.get(i).key;
                pipeline.flying().disown(key); // scripts sent behind it expect what it would have written
                if (pipeline.flying().newest(key, sequence)) {
                    pipeline.known().forget(key); // the next decision on it reads it afresh
                }
            }
            if (BucketRepair.isWrongType(e)) {
                // its own copy of the keys: this script's cells, which its keys are read through, are
                // made over once it is settled
                pipeline.send(RepairFlight.wrongType(keyList(), jobList(), e));
                return;
            }
            // its decisions are refused: were the script applied after all, its tokens stay taken
            // (a refused request paid for), never given to a second decision
            QuotaStoreException doubt = writes() ? QuotaStoreException.inDoubt(
                    "write in doubt: " + e.getMessage(), e.getCause() != null ? e.getCause() : e) : e;
            CasJob.failAll(this, doubt);
            return;
        }
        List<CasScript.Difference> took = CasScript.took(answer);
        List<CasScript.Difference> differences = took == null ? CasScript.differences(answer) : List.of();
        if (differences.isEmpty()) {
            if (took != null) {
                tookElsewhere(pipeline, took);
            }
            for (int i = 0; i < cells.size(); i++) {
                Cell cell = cells.get(i);
                if (took != null && tookFrom(took, i)) {
                    continue; // remembered as written there
                }
                if (!pipeline.flying().newest(cell.key, sequence)) {
                    continue; // a script sent after it on the key was settled first: that one is newer
                }
                if (!cell.leavesKey()) {
                    pipeline.known().confirmAbsent(cell.key, now);
                    continue;
                }
                long ttl = cell.ttlMillis;
                pipeline.known().confirmDigest(cell.key, cell, cell.state, now,
                        ttl > 0 ? ttl : expiry.calculateTimeToLiveMillis(cell.state, now));
            }
            for (int j = 0; j < jobCount(); j++) {
                job(j).complete();
            }
            return;
        }
        List<String> changed = new ArrayList<>(differences.size());
        boolean[] differs = new boolean[cells.size()];
        for (CasScript.Difference difference : differences) {
            String key = cells.get(difference.index()).key;
            differs[difference.index()] = true;
            if (!pipeline.flying().disowned(key)) {
                changed.add(key); // else a script of ours before it on the key wrote nothing: no other writer
            }
            if (pipeline.flying().newest(key, sequence)) {
                pipeline.remember(key, difference.holds(), now, this);
            }
        }
        // the script looked at every key: one assumed absent that it did not answer was absent, so
        // its jobs, computed again, need not read it (a new customer's key in a script another
        // key failed)
        for (int i = 0; i < cells.size(); i++) {
            Cell cell = cells.get(i);
            if (!differs[i] && !cell.expects && pipeline.flying().newest(cell.key, sequence)) {
                pipeline.known().confirmAbsent(cell.key, now);
            }
        }
        for (int i = 0; i < cells.size(); i++) {
            pipeline.flying().disown(cells.get(i).key); // it wrote none of them: scripts behind it will find them changed
        }
        pipeline.flying().conflict(changed, pipeline.wall());
        pipeline.computeAgain(this);
    }
}
