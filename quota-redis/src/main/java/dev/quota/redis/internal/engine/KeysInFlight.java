package dev.quota.redis.internal.engine;

import io.github.bucket4j.distributed.remote.RemoteBucketState;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * The keys carried by flights out ({@link Pipeline}), and whether a job on one of them may go
 * before the replies come: pipelined compare-and-swap.
 *
 * <p>While this instance holds a key's latest state (every script settled on it since it went
 * into flight found what it expected, and no script on it found it changed within
 * {@link #CONTESTED_NANOS}), the next script on it need not wait: it is computed on what the last
 * script sent leaves there ({@link #pipelinedOn}) and expects that state (its digest), up to {@link #MAX_DEPTH}
 * scripts deep. If a script before it finds the key changed, or fails, this one finds the key
 * changed too (it expects a state that was never written), writes nothing, and its jobs are
 * computed again from what it answers: exactness is the compare-and-swap's, in whatever order
 * Redis runs the scripts and the replies come. A key other instances write is not pipelined:
 * there every script behind a lost one would be lost too, and the instance pipelining would keep
 * the others from ever finding the key as they last saw it.
 *
 * <p>Reads and repairs on a key hold every job on it until they are settled. The combiner's alone,
 * but for {@link #conflicts}, which any thread reads.
 */
public final class KeysInFlight {

    /**
     * The most scripts out on one key at once: what a conflict in the middle costs at most. Every
     * transfer carries the shared rule's key, so this depth is every transfer's: a shallower one
     * makes a paced transfer wait for a slot behind that key, a deeper one lets it go at once, a
     * script a decision, as a Lua script would. The figures behind the choice are quota-bench's
     * scenario 5b (paced p99 at +0.5 ms) in docs/BENCHMARKS.md.
     */
    public static final int MAX_DEPTH = 16;
    /** How long after a conflict on a key its scripts wait for each other's replies (flight clock). */
    public static final long CONTESTED_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /** Contested keys remembered; past that the one contested longest ago is forgotten. */
    private static final int CONTESTED_KEYS = 1024;
    /** Records of keys that left flight kept for the next keys to go into flight. */
    private static final int SPARE_KEYS = 64;
    /** The key table's first size, a power of two. */
    private static final int MIN_TABLE = 64;

    /** One key in flight. */
    static final class Key {
        /** The key's name; null while the record is spare. */
        @Nullable String name;
        /** Flights out carrying the key. */
        int flights;
        /** Of them, scripts: how deep the key's pipeline is. */
        int scripts;
        /** Of them, reads and repairs. */
        int others;
        /** Whether the last script sent on the key leaves a state there if it runs (else: no key). */
        boolean exists;
        /** The SHA-1 of the state it leaves, if it {@link #exists}: what a script behind it expects. */
        long high;
        long middle;
        int low;
        /** The last script sent on the key: what a job computed on what it leaves waits for. */
        @Nullable ScriptFlight lastScript;
        /** The state it leaves, parsed (null: no key). */
        @Nullable RemoteBucketState state;
        /** Whether every script settled on the key since it went into flight found what it expected. */
        boolean owned = true;
        /** The number of the newest script settled on the key: an older reply tells nothing newer. */
        long newestSettled = Long.MIN_VALUE;

        /** As new: for a key that goes into flight again. */
        void reset() {
            name = null;
            flights = 0;
            scripts = 0;
            others = 0;
            exists = false;
            lastScript = null;
            state = null;
            owned = true;
            newestSettled = Long.MIN_VALUE;
        }
    }

    private final boolean pipelining;
    /**
     * The keys in flight by name: open addressing, linear probing, at most half full, so a key that
     * goes into flight costs no map entry (its record is reused, {@link #spare}).
     */
    private Key[] table = new Key[MIN_TABLE];
    private int size;
    /** The flight clock at the last conflict on each key that had one lately. */
    private final LinkedHashMap<String, Long> contested = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
            return size() > CONTESTED_KEYS;
        }
    };
    private final LongAdder conflicts = new LongAdder();
    private long sequence;
    /** Records of keys that left flight, reused (a key in flight per decision would allocate one each). */
    private final Key[] spare = new Key[SPARE_KEYS];
    private int spares;

    /** @param pipelining false when every consume reads its keys first: then nothing is pipelined */
    KeysInFlight(boolean pipelining) {
        this.pipelining = pipelining;
    }

    boolean isEmpty() {
        return size == 0;
    }

    /** Whether a job on {@code key} must wait for replies: the key is in flight and not pipelined. */
    boolean blocks(String key, long wall) {
        Key pending = find(key);
        if (pending == null) {
            return false;
        }
        if (!pipelining || pending.others > 0 || !pending.owned || pending.scripts >= MAX_DEPTH) {
            return true;
        }
        Long since = contested.get(key);
        return since != null && wall - since < CONTESTED_NANOS;
    }

    /** The key as a script of this instance on its way leaves it, if one is: a job on it is pipelined. */
    @Nullable Key pipelinedOn(String key) {
        Key pending = find(key);
        return pending != null && pending.scripts > 0 ? pending : null;
    }

    /** {@code flight} was sent: its keys are in flight; a script is numbered and leaves its states. */
    void enter(Flight flight) {
        ScriptFlight script = flight instanceof ScriptFlight s ? s : null;
        if (script != null) {
            script.sequence = ++sequence;
        }
        for (int i = 0; i < flight.keyCount(); i++) {
            String key = flight.key(i);
            Key pending = find(key);
            if (pending == null) {
                pending = insert(key);
            }
            pending.flights++;
            if (script != null) {
                pending.scripts++;
                pending.lastScript = script;
                Cell cell = script.cells.get(i); // the cell of the script's ith key
                pending.exists = cell.leavesKey();
                pending.high = cell.high(); // what the key holds once the script ran
                pending.middle = cell.middle();
                pending.low = cell.low();
                pending.state = pending.exists ? cell.state : null;
            } else {
                pending.others++;
            }
        }
    }

    /** {@code flight} was settled: its keys leave flight. */
    void leave(Flight flight) {
        boolean script = flight instanceof ScriptFlight;
        for (int i = 0; i < flight.keyCount(); i++) {
            String key = flight.key(i);
            Key pending = find(key);
            if (pending == null) {
                continue;
            }
            if (--pending.flights == 0) {
                remove(key);
                if (spares < SPARE_KEYS) {
                    pending.reset();
                    spare[spares++] = pending;
                }
            } else if (script) {
                pending.scripts--;
            } else {
                pending.others--;
            }
        }
    }

    /**
     * Whether the script numbered {@code sequence}, settling, is the newest settled on {@code key}
     * (then what it learnt of the key is what to remember); records it.
     */
    boolean newest(String key, long sequence) {
        Key pending = find(key);
        if (pending == null) {
            return true;
        }
        if (sequence < pending.newestSettled) {
            return false;
        }
        pending.newestSettled = sequence;
        return true;
    }

    /** A script on {@code key} failed or wrote nothing: the scripts behind it expect what it did not write. */
    void disown(String key) {
        Key pending = find(key);
        if (pending != null) {
            pending.owned = false;
        }
    }

    /**
     * Whether a script of this instance before the ones now settling on {@code key} failed or wrote
     * nothing: the scripts sent behind it on the key find it differing for that alone.
     */
    boolean disowned(String key) {
        Key pending = find(key);
        return pending != null && !pending.owned;
    }

    /** A script found {@code changed} keys changed (another instance wrote them): counted; not pipelined a while. */
    void conflict(List<String> changed, long wall) {
        conflicts.increment();
        for (String key : changed) {
            contested.put(key, wall);
        }
    }

    /** Scripts that found a key changed since the store was built (any thread). */
    long conflicts() {
        return conflicts.sum();
    }

    /** The record of {@code key} in flight, or null. */
    private @Nullable Key find(String key) {
        Key[] t = table;
        int mask = t.length - 1;
        for (int i = home(key, mask); ; i = (i + 1) & mask) {
            Key k = t[i];
            if (k == null) {
                return null;
            }
            if (key.equals(k.name)) {
                return k;
            }
        }
    }

    /** Puts {@code key}, not in flight, into the table with a record of its own (a spare one if any). */
    private Key insert(String key) {
        if (2 * (size + 1) > table.length) {
            Key[] old = table;
            table = new Key[old.length * 2];
            for (Key k : old) {
                if (k != null) {
                    place(k);
                }
            }
        }
        Key pending = spares > 0 ? spare[--spares] : new Key();
        pending.name = key;
        place(pending);
        size++;
        return pending;
    }

    private void place(Key k) {
        Key[] t = table;
        int mask = t.length - 1;
        int i = home(Objects.requireNonNull(k.name, "a key in the table has a name"), mask);
        while (t[i] != null) {
            i = (i + 1) & mask;
        }
        t[i] = k;
    }

    /**
     * Takes {@code key} out of the table, then moves back each record after it in its run that may
     * take its place (a lookup stops at the first empty place, so none may be left behind a gap).
     */
    private void remove(String key) {
        Key[] t = table;
        int mask = t.length - 1;
        int gap = home(key, mask);
        while (!key.equals(Objects.requireNonNull(t[gap], "a key removed is in the table").name)) {
            gap = (gap + 1) & mask;
        }
        t[gap] = null;
        size--;
        for (int j = (gap + 1) & mask; t[j] != null; j = (j + 1) & mask) {
            Key k = t[j];
            int home = home(Objects.requireNonNull(k.name, "a key in the table has a name"), mask);
            // k may fill the gap when the gap lies on its way from its home to where it is
            if (((j - home) & mask) >= ((j - gap) & mask)) {
                t[gap] = k;
                t[j] = null;
                gap = j;
            }
        }
    }

    private static int home(String key, int mask) {
        int h = key.hashCode();
        return (h ^ h >>> 16) & mask;
    }
}
