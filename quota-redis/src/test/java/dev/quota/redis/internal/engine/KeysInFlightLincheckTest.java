package dev.quota.redis.internal.engine;

import dev.quota.redis.internal.transport.RedisLink;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.junit.jupiter.api.Test;

/**
 * The pipeline's key bookkeeping ({@link KeysInFlight}: an open-addressing table with records
 * reused and backward-shift removal), model-checked by Lincheck against a plain map of how many
 * flights carry each key: flights go out over one or two keys and are settled oldest or newest
 * first, and after any sequence {@link KeysInFlight#blocks} and {@link KeysInFlight#isEmpty}
 * answer as the map does. The keys collide on purpose ("Aa" and "BB" share a hash code, as do the
 * four of length 4), so runs of the table are probed past, removed from the middle of and shifted.
 *
 * <p>What model checking can and cannot show here: the bookkeeping is the combiner's alone (only
 * the thread holding {@link Combiner}'s flag touches it, which {@link CombinerLincheckTest}
 * checks), so the operations here hold a lock as that flag does, and no interleaving inside them
 * is possible by construction. What Lincheck adds is its search over the orders of operations
 * from several threads and its minimized counterexample when the table and the map disagree.
 *
 * <p>Public, with a public constructor: Lincheck creates one instance per scenario by reflection.
 */
@Param(name = "key", gen = IntGen.class, conf = "0:5")
public class KeysInFlightLincheckTest {

    /** Keys whose hash codes collide: "Aa" and "BB", and the four of length 4. */
    static final String[] KEYS = {"Aa", "BB", "AaAa", "BBBB", "AaBB", "BBAa"};

    private final KeysInFlight keys = new KeysInFlight(true);
    private final ArrayDeque<Flight> out = new ArrayDeque<>();

    public KeysInFlightLincheckTest() {
    }

    @Operation
    public synchronized void send(@Param(name = "key") int first, @Param(name = "key") int second) {
        Flight flight = new Reads(first == second ? List.of(KEYS[first]) : List.of(KEYS[first], KEYS[second]));
        keys.enter(flight);
        out.addLast(flight);
    }

    @Operation
    public synchronized boolean settleOldest() {
        Flight flight = out.pollFirst();
        if (flight == null) {
            return false;
        }
        keys.leave(flight);
        return true;
    }

    @Operation
    public synchronized boolean settleNewest() {
        Flight flight = out.pollLast();
        if (flight == null) {
            return false;
        }
        keys.leave(flight);
        return true;
    }

    @Operation
    public synchronized boolean blocks(@Param(name = "key") int key) {
        return keys.blocks(KEYS[key], 0);
    }

    @Operation
    public synchronized boolean isEmpty() {
        return keys.isEmpty();
    }

    @Test
    void modelChecking() {
        new ModelCheckingOptions().iterations(20).invocationsPerIteration(30).threads(2).actorsPerThread(4)
                .actorsBefore(6).sequentialSpecification(Model.class).check(getClass());
    }

    /** The specification: how many flights carry each key, and the flights in the order they went out. */
    public static final class Model {
        private final Map<String, Integer> carried = new HashMap<>();
        private final ArrayDeque<List<String>> out = new ArrayDeque<>();

        public Model() {
        }

        public void send(int first, int second) {
            List<String> flight = first == second ? List.of(KEYS[first]) : List.of(KEYS[first], KEYS[second]);
            flight.forEach(key -> carried.merge(key, 1, Integer::sum));
            out.addLast(flight);
        }

        public boolean settleOldest() {
            return settle(out.pollFirst());
        }

        public boolean settleNewest() {
            return settle(out.pollLast());
        }

        private boolean settle(List<String> flight) {
            if (flight == null) {
                return false;
            }
            flight.forEach(key -> carried.computeIfPresent(key, (k, n) -> n == 1 ? null : n - 1));
            return true;
        }

        public boolean blocks(int key) {
            return carried.containsKey(KEYS[key]); // a read in flight holds every job on its keys
        }

        public boolean isEmpty() {
            return carried.isEmpty();
        }
    }

    /** Reads of some keys, as a round sends before computing; never sent anywhere here. */
    private static final class Reads extends Flight {
        private final List<String> keys;

        Reads(List<String> keys) {
            this.keys = new ArrayList<>(keys);
        }

        @Override
        int keyCount() {
            return keys.size();
        }

        @Override
        String key(int i) {
            return keys.get(i);
        }

        @Override
        int jobCount() {
            return 0;
        }

        @Override
        CasJob job(int i) {
            throw new IndexOutOfBoundsException(i);
        }

        @Override
        CompletableFuture<?> send(RedisLink link) {
            throw new UnsupportedOperationException("never sent");
        }

        @Override
        void settle(Pipeline pipeline) {
            throw new UnsupportedOperationException("settled by the test");
        }
    }
}
