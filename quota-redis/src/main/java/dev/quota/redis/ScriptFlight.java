package dev.quota.redis;

import dev.quota.core.QuotaStoreException;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.List;
import java.util.RandomAccess;
import java.util.concurrent.CompletableFuture;

/**
 * The keys of one Redis Cluster slot in one round, the jobs computed on them, and the
 * compare-and-swap script ({@link CasScript}) that checks every key still holds what was assumed
 * and writes the new states with their TTLs.
 */
final class ScriptFlight extends Flight {

    final List<Cell> cells;
    /** The round's time, by the store's clock: when what the script confirms was true. */
    private final long now;
    private final ExpirationAfterWriteStrategy expiry;
    /** Set when sent ({@link KeysInFlight#enter}): later scripts have larger numbers. */
    long sequence;

    /** A script for about {@code keys} keys and {@code jobs} jobs (the lists' first sizes), added to after. */
    ScriptFlight(long now, ExpirationAfterWriteStrategy expiry, int keys, int jobs) {
        this(now, expiry, new ArrayList<>(keys), new ArrayList<>(jobs));
    }

    /**
     * A script on {@code cells} for {@code jobs}, lists it keeps: its keys are read through its
     * cells (a view, not a list of their own), so a script costs two lists, not three.
     */
    ScriptFlight(long now, ExpirationAfterWriteStrategy expiry, List<Cell> cells, List<CasJob> jobs) {
        this(now, expiry, cells, new Keys(cells), jobs);
    }

    private ScriptFlight(long now, ExpirationAfterWriteStrategy expiry, List<Cell> cells, Keys keys,
                         List<CasJob> jobs) {
        super(keys, jobs);
        this.cells = cells;
        this.now = now;
        this.expiry = expiry;
    }

    /**
     * The keys of a script's cells, read through them: valid until the script is settled, when its
     * cells are made over for later rounds ({@link CasRound#recycle}); what outlives it copies them.
     */
    private static final class Keys extends AbstractList<String> implements RandomAccess {
        private final List<Cell> cells;

        Keys(List<Cell> cells) {
            this.cells = cells;
        }

        @Override
        public String get(int index) {
            return cells.get(index).key;
        }

        @Override
        public int size() {
            return cells.size();
        }
    }

    void add(Cell cell) {
        cells.add(cell);
    }

    @Override
    CompletableFuture<?> send(RedisLink link) {
        // the new states are serialized one after another into this thread's buffer, which the
        // link reads before it returns (the argument is written as the script is sent): no array a state
        StateDigest digest = StateDigest.local();
        digest.startScript();
        for (int i = 0; i < cells.size(); i++) {
            Cell cell = cells.get(i);
            cell.writes = false;
            cell.ttlMillis = 0;
            if (cell.dirty && cell.state != null) {
                cell.sending(digest, digest.append(cell.state));
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
            answer = Flight.outcome((CompletableFuture<List<Object>>) reply(), keys.get(0), pipeline.timeoutNanos());
        } catch (QuotaStoreException e) {
            for (String key : keys) {
                pipeline.flying().disown(key); // scripts sent behind it expect what it would have written
                if (pipeline.flying().newest(key, sequence)) {
                    pipeline.known().forget(key); // the next decision on it reads it afresh
                }
            }
            if (BucketRepair.isWrongType(e)) {
                // its own copy of the keys: this script's cells, which its keys are read through, are
                // made over once it is settled
                pipeline.send(RepairFlight.wrongType(List.copyOf(keys), jobs, e));
                return;
            }
            // its decisions are refused: were the script applied after all, its tokens stay taken
            // (a refused request paid for), never given to a second decision
            QuotaStoreException doubt = writes() ? QuotaStoreException.inDoubt(
                    "write in doubt: " + e.getMessage(), e.getCause() != null ? e.getCause() : e) : e;
            CasJob.failAll(jobs, doubt);
            return;
        }
        List<CasScript.Difference> differences = CasScript.differences(answer);
        if (differences.isEmpty()) {
            for (int i = 0; i < cells.size(); i++) {
                Cell cell = cells.get(i);
                if (!pipeline.flying().newest(cell.key, sequence)) {
                    continue; // a script sent after it on the key was settled first: that one is newer
                }
                long ttl = cell.ttlMillis;
                pipeline.known().confirm(cell, now,
                        ttl > 0 || !cell.leavesKey() ? ttl : expiry.calculateTimeToLiveMillis(cell.state, now));
            }
            for (int j = 0; j < jobs.size(); j++) { // indexed: a list of one's forEach makes an iterator
                jobs.get(j).complete();
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
                pipeline.remember(key, difference.holds(), now, jobs);
            }
        }
        // the script looked at every key: one assumed absent that it did not answer was absent, so
        // its jobs, computed again, need not read it (a new customer's key in a script another
        // key failed)
        for (int i = 0; i < cells.size(); i++) {
            Cell cell = cells.get(i);
            if (!differs[i] && !cell.expects && pipeline.flying().newest(cell.key, sequence)) {
                pipeline.known().confirm(cell.key, null, null, now, 0);
            }
        }
        keys.forEach(pipeline.flying()::disown); // it wrote none of them: scripts behind it will find them changed
        pipeline.flying().conflict(changed, pipeline.wall());
        pipeline.computeAgain(jobs);
    }
}
