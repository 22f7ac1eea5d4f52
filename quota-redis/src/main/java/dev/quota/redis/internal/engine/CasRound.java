package dev.quota.redis.internal.engine;

import dev.quota.redis.internal.encoding.KeySlots;
import dev.quota.redis.internal.keystate.KeyState;
import dev.quota.redis.internal.keystate.KeyStates;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.remote.RemoteBucketState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One compare-and-swap round: computes jobs in order on the states this instance last wrote or
 * saw, answers at once the refusals that stand on states Redis confirmed within the trust window,
 * and groups the rest into one script per Redis Cluster slot (one in all for a standalone or
 * Sentinel Redis). The combiner's alone; touches no network.
 *
 * <p>A refusal computed from states Redis confirmed within {@code trustNanos} needs no round trip:
 * consumption elsewhere only lowers tokens, so the refusal stands (a refund or reset on another
 * instance is seen within that time).
 *
 * <p>One round object serves every round of its {@link Pipeline} ({@link #start} begins the next):
 * its lists and map are kept, so a round allocates only its scripts, which outlive it while they
 * are out (their cells and cell lists are those of settled scripts, made over). A round of a few
 * keys finds a key's cell by looking at each; a larger one through a map.
 */
public final class CasRound {

    /**
     * The most times a refusal waits for replies of this instance's scripts on its keys
     * ({@link #waitsForReplies}) before it goes to Redis itself. A wait ends with a reply, and a
     * refusal finds its key pipelined again only behind a script sent while it waited, one that
     * takes tokens (refusals wait, they do not go): so a key of capacity {@code c} at a frozen
     * instant keeps a refusal waiting at most {@code c} times, and a key whose tokens keep coming
     * back at most this many round trips.
     */
    static final int MAX_WAITS = KeysInFlight.MAX_DEPTH;
    /** Up to this many cells a key's cell is found by looking at each; past it, by the map. */
    private static final int LOOKED_AT = 8;
    /** Cells of settled scripts kept to be made over. */
    private static final int SPARE_CELLS = 256;
    /** Cell lists of settled scripts kept to be made over: as many as scripts are usually in flight. */
    private static final int SPARE_LISTS = 64;

    private final KeyStates known;
    private final KeysInFlight flying;
    private final ExpirationAfterWriteStrategy expiry;
    private final boolean cluster;
    private long now;
    /** The round's cells, in the order its jobs first touched their keys. */
    private final List<Cell> cells = new ArrayList<>();
    /** The cells by key, while the round has more than {@link #LOOKED_AT}. */
    private final Map<String, Cell> byKey = new HashMap<>();
    private final List<CasJob> toSend = new ArrayList<>();
    /** Refusals that wait for replies of this instance's scripts before they are computed again. */
    private final List<CasJob> waiting = new ArrayList<>();
    private final List<ScriptFlight> scripts = new ArrayList<>();
    private final Map<Integer, ScriptFlight> bySlot = new HashMap<>();
    /** Cells of settled scripts, made over for the next keys ({@link #recycle}). */
    private final @Nullable Cell[] spare = new Cell[SPARE_CELLS];
    private int spareCells;
    /** Cell lists of settled scripts, emptied, made over for the next scripts ({@link #recycle}). */
    private final List<ArrayList<Cell>> spareLists = new ArrayList<>();
    /** A job's cells and their states while it is computed ({@link #jobCells}); grown to the largest job's keys. */
    private @Nullable Cell[] jobCells = new Cell[LOOKED_AT];
    private @Nullable RemoteBucketState[] jobStates = new RemoteBucketState[LOOKED_AT];

    CasRound(KeyStates known, KeysInFlight flying, ExpirationAfterWriteStrategy expiry, boolean cluster) {
        this.known = known;
        this.flying = flying;
        this.expiry = expiry;
        this.cluster = cluster;
    }

    /** Begins a round at {@code now} (the store's clock): the last round's cells are forgotten. */
    void start(long now) {
        this.now = now;
        if (cells.size() > LOOKED_AT) {
            byKey.clear();
        }
        cells.clear();
        toSend.clear();
        waiting.clear();
        scripts.clear();
        bySlot.clear();
    }

    /**
     * An array of at least {@code n} cells for the job being computed to fill, use and clear: the
     * combiner computes one job at a time, so one array serves every job (none allocated per decision).
     */
    @Nullable Cell[] jobCells(int n) {
        if (jobCells.length < n) {
            jobCells = new Cell[n];
        }
        return jobCells;
    }

    /** As {@link #jobCells}: at least {@code n} states, the job's buckets before it. */
    @Nullable RemoteBucketState[] jobStates(int n) {
        if (jobStates.length < n) {
            jobStates = new RemoteBucketState[n];
        }
        return jobStates;
    }

    /** The round's time, by the store's clock. */
    public long now() {
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
    public Cell cell(String key) {
        Cell cell = find(key);
        if (cell == null) {
            KeysInFlight.Key pending = flying.pipelinedOn(key);
            if (pending != null) {
                cell = cell(key, pending.state, false, Long.MIN_VALUE, pending.lastScript);
                if (pending.exists) {
                    cell.expect(pending.high, pending.middle, pending.low);
                }
            } else {
                KeyState state = known.get(key, now);
                if (state == null) {
                    cell = cell(key, null, false, Long.MIN_VALUE, null);
                } else if (state.unparsed()) {
                    // parsed for this round alone: the cell's own, computed on in place
                    cell = cell(key, known.parse(state), true, state.confirmedNanos(), null);
                    cell.owned = true;
                } else {
                    cell = cell(key, state.state(), true, state.confirmedNanos(), null);
                }
                if (state != null && state.exists()) {
                    cell.expect(state.high(), state.middle(), state.low());
                }
            }
            add(cell);
        }
        return cell;
    }

    /** A cell for {@code key}: a spare one made over, else a new one. */
    private Cell cell(String key, @Nullable RemoteBucketState state, boolean knownBefore, long confirmedNanos,
                      @Nullable Flight behind) {
        if (spareCells > 0) {
            Cell made = Objects.requireNonNull(spare[--spareCells], "counted spare");
            spare[spareCells] = null;
            return made.set(key, state, knownBefore, confirmedNanos, behind);
        }
        return new Cell(key, state, knownBefore, confirmedNanos, behind);
    }

    /**
     * The cells of a script that was settled, and their list, to be made over by later rounds: once
     * settled, a script's cells are read by nobody (what it leaves on its keys was taken when it was
     * sent).
     */
    void recycle(List<Cell> settled) {
        for (int i = 0; i < settled.size() && spareCells < spare.length; i++) {
            Cell cell = settled.get(i);
            cell.clear();
            spare[spareCells++] = cell;
        }
        if (settled instanceof ArrayList<Cell> list && spareLists.size() < SPARE_LISTS) {
            list.clear();
            spareLists.add(list);
        }
    }

    /** An empty list for a script's cells: a settled script's made over, else a new one. */
    private List<Cell> cellList() {
        int n = spareLists.size();
        return n > 0 ? spareLists.remove(n - 1) : new ArrayList<>(4);
    }

    private @Nullable Cell find(String key) {
        int n = cells.size();
        if (n > LOOKED_AT) {
            return byKey.get(key);
        }
        for (int i = 0; i < n; i++) {
            Cell cell = cells.get(i);
            if (cell.key.equals(key)) {
                return cell;
            }
        }
        return null;
    }

    private void add(Cell cell) {
        cells.add(cell);
        int n = cells.size();
        if (n == LOOKED_AT + 1) {
            for (Cell each : cells) {
                byKey.put(each.key, each);
            }
        } else if (n > LOOKED_AT + 1) {
            byKey.put(cell.key, cell);
        }
    }

    /**
     * Computes {@code pending}; answers the refusals that stand; answers the scripts to send (a
     * list of this round's, read before the next round starts).
     */
    List<ScriptFlight> compute(List<CasJob> pending, long trustNanos) {
        // indexed loops here and below: an iterator a round would be garbage a decision
        for (int j = 0; j < pending.size(); j++) {
            pending.get(j).compute(this);
        }
        // refusals that stand on confirmed states are answered now, even when others' jobs go to
        // Redis: riding along would only add their keys to the script (a flooding customer's to
        // every script while it floods)
        for (int j = 0; j < pending.size(); j++) {
            CasJob job = pending.get(j);
            if (standsOnConfirmedStates(job, trustNanos)) {
                job.complete();
                continue;
            }
            if (waitsForReplies(job, trustNanos)) {
                waiting.add(job);
                continue;
            }
            toSend.add(job);
            for (int k = 0; k < job.keyCount(); k++) {
                Cell cell = find(job.key(k));
                if (cell != null && !cell.carried) { // a cell always is: compute read it
                    cell.carried = true; // a written cell always is: the job that wrote it is sent
                }
            }
        }
        if (toSend.isEmpty()) {
            return scripts;
        }
        if (!cluster) {
            List<Cell> carriedCells = cellList();
            for (int c = 0; c < cells.size(); c++) {
                Cell cell = cells.get(c);
                if (cell.carried) {
                    carriedCells.add(cell);
                }
            }
            // one decision's script (every decision when they come one at a time) holds its job without a list
            scripts.add(toSend.size() == 1 ? new ScriptFlight(now, expiry, carriedCells, toSend.get(0))
                    : new ScriptFlight(now, expiry, carriedCells, new ArrayList<>(toSend)));
            return scripts;
        }
        for (Cell cell : cells) {
            if (cell.carried) {
                slotScript(KeySlots.slot(cell.key)).add(cell);
            }
        }
        for (CasJob job : toSend) {
            // the job's first key has a cell (compute read it), so its flight exists already
            slotScript(KeySlots.slot(job.key(0))).addJob(job);
        }
        return scripts;
    }

    private ScriptFlight slotScript(int slot) {
        ScriptFlight script = bySlot.get(slot);
        if (script == null) {
            script = new ScriptFlight(now, expiry, cellList(), new ArrayList<>(4));
            bySlot.put(slot, script);
            scripts.add(script);
        }
        return script;
    }

    /** The refusals {@link #compute} left waiting for replies ({@link CasJob#awaiting}): held, not sent. */
    List<CasJob> waiting() {
        return waiting;
    }

    /**
     * Whether {@code job}'s answer is a refusal that would stand without Redis but for keys it was
     * computed on as this instance's scripts in flight leave them (pipelined): then, up to
     * {@link #MAX_WAITS} times, it waits for those scripts' replies and is computed again on what
     * they confirm, where it normally stands. Sent at once instead, it would cost a script, and it would keep its keys in
     * flight for the next refusal to find pipelined too: a customer flooding faster than a round
     * trip would cost one script per refused request.
     */
    private boolean waitsForReplies(CasJob job, long trustNanos) {
        if (trustNanos == 0 || job.waits >= MAX_WAITS || !job.refusal()) {
            return false;
        }
        List<Flight> flights = null;
        for (int k = 0; k < job.keyCount(); k++) {
            Cell cell = find(job.key(k));
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
        job.waits++;
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
        for (int k = 0; k < job.keyCount(); k++) {
            Cell cell = find(job.key(k));
            if (cell == null || cell.dirty || !cell.knownBefore || now - cell.confirmedNanos >= trustNanos) {
                return false;
            }
        }
        return true;
    }
}
