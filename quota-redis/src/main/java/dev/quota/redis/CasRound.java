package dev.quota.redis;

import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One compare-and-swap round: computes jobs in order on the states this instance last wrote or
 * saw, answers at once the refusals that stand on states Redis confirmed within the trust window,
 * and groups the rest into one script per Redis Cluster slot (one in all for a standalone or
 * Sentinel Redis). The combiner's alone; touches no network.
 *
 * <p>A refusal computed from states Redis confirmed within {@code trustNanos} needs no round trip:
 * consumption elsewhere only lowers tokens, so the refusal stands (a refund or reset on another
 * instance is seen within that time).
 */
final class CasRound {

    private final KeyStates known;
    private final KeysInFlight flying;
    private final long now;
    private final ExpirationAfterWriteStrategy expiry;
    private final Map<String, Cell> cells = new LinkedHashMap<>();
    /** Refusals that wait for replies of this instance's scripts before they are computed again. */
    private final List<CasJob> waiting = new ArrayList<>();

    CasRound(KeyStates known, KeysInFlight flying, long now, ExpirationAfterWriteStrategy expiry) {
        this.known = known;
        this.flying = flying;
        this.now = now;
        this.expiry = expiry;
    }

    /** The round's time, by the store's clock. */
    long now() {
        return now;
    }

    /** The expiration a job's writes get unless it brings its own. */
    ExpirationAfterWriteStrategy expiry() {
        return expiry;
    }

    /**
     * The cell of {@code key} for this round: on a key a script of this instance is writing (the job
     * is pipelined behind it), what that script leaves there, never confirmed; else from what is
     * known, else assumed absent.
     */
    Cell cell(String key) {
        Cell cell = cells.get(key);
        if (cell == null) {
            KeysInFlight.Key pending = flying.pipelinedOn(key);
            if (pending != null) {
                cell = new Cell(key, pending.bytes, pending.state, false, Long.MIN_VALUE, pending.lastScript);
            } else {
                KeyState state = known.get(key, now);
                cell = state == null ? new Cell(key, null, null, false, Long.MIN_VALUE)
                        : new Cell(key, state.bytes(), state.state(), true, state.confirmedNanos());
            }
            cells.put(key, cell);
        }
        return cell;
    }

    /** Computes {@code pending}; answers the refusals that stand; returns the scripts to send. */
    List<ScriptFlight> compute(List<CasJob> pending, long trustNanos, boolean cluster) {
        for (CasJob job : pending) {
            job.compute(this);
        }
        // refusals that stand on confirmed states are answered now, even when others' jobs go to
        // Redis: riding along would only add their keys to the script (a flooding customer's to
        // every script while it floods)
        List<CasJob> toSend = new ArrayList<>(pending.size());
        Set<String> used = new HashSet<>();
        for (CasJob job : pending) {
            if (standsOnConfirmedStates(job, trustNanos)) {
                job.complete();
            } else if (waitsForReplies(job, trustNanos)) {
                waiting.add(job);
            } else {
                toSend.add(job);
                used.addAll(job.keys());
            }
        }
        if (toSend.isEmpty()) {
            return List.of();
        }
        Map<Integer, ScriptFlight> groups = new LinkedHashMap<>();
        for (Cell cell : cells.values()) {
            if (used.contains(cell.key)) { // a written cell always is: the job that wrote it is sent
                groups.computeIfAbsent(cluster ? KeySlots.slot(cell.key) : 0, s -> new ScriptFlight(now, expiry))
                        .add(cell);
            }
        }
        for (CasJob job : toSend) {
            // the job's first key has a cell (compute read it), so its flight exists already
            groups.computeIfAbsent(cluster ? KeySlots.slot(job.keys().get(0)) : 0, s -> new ScriptFlight(now, expiry))
                    .jobs.add(job);
        }
        return new ArrayList<>(groups.values());
    }

    /** The refusals {@link #compute} left waiting for replies ({@link CasJob#awaiting}): held, not sent. */
    List<CasJob> waiting() {
        return waiting;
    }

    /**
     * Whether {@code job}'s answer is a refusal that would stand without Redis but for keys it was
     * computed on as this instance's scripts in flight leave them (pipelined): then, once only, it
     * waits for those scripts' replies and is computed again on what they confirm, where it
     * normally stands. Sent at once instead, it would cost a script, and it would keep its keys in
     * flight for the next refusal to find pipelined too: a customer flooding faster than a round
     * trip would cost one script per refused request.
     */
    private boolean waitsForReplies(CasJob job, long trustNanos) {
        if (trustNanos == 0 || job.waited || !job.refusal()) {
            return false;
        }
        List<Flight> flights = null;
        for (String key : job.keys()) {
            Cell cell = cells.get(key);
            if (cell == null || cell.dirty) {
                return false;
            }
            if (cell.behind != null) {
                if (flights == null) {
                    flights = new ArrayList<>(2);
                }
                flights.add(cell.behind);
            } else if (!cell.knownBefore || now - cell.confirmedNanos >= trustNanos) {
                return false;
            }
        }
        if (flights == null) {
            return false;
        }
        job.waited = true;
        job.awaiting = flights;
        return true;
    }

    /**
     * Whether {@code job}'s answer is a refusal that stands without Redis: every key it touches was
     * confirmed within the trust window and nothing in this round wrote it (neither the job itself,
     * whose answer would then be a take, nor a job computed before or after it).
     */
    private boolean standsOnConfirmedStates(CasJob job, long trustNanos) {
        if (trustNanos == 0 || !job.refusal()) {
            return false;
        }
        for (String key : job.keys()) {
            Cell cell = cells.get(key);
            if (cell == null || cell.dirty || !cell.knownBefore || now - cell.confirmedNanos >= trustNanos) {
                return false;
            }
        }
        return true;
    }
}
