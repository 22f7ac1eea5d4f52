package dev.quota.redis.internal.engine;

import java.util.List;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.junit.jupiter.api.Test;

/**
 * The engine's lock-free part, its combining ({@link Combiner}: a queue of jobs, a flag, parked
 * waiters), stress-tested by Lincheck: every caller's job is answered exactly once, by whichever caller
 * combined, and the answers are those of some sequential order (linearizable). The step here
 * answers each job with the next number, so a job lost, answered twice or answered out of any
 * sequential order shows as a wrong result or a hang, which Lincheck reports as a deadlock; two
 * steps at once (the flag not exclusive) answer -1: with the flag's compare-and-set made a read
 * then a write, this test fails. (Lincheck's model checking, tried too, did not find that fault.)
 *
 * <p>Public, with a public constructor: Lincheck creates one instance per scenario by reflection.
 */
public class CombinerLincheckTest {

    /** The state under test: a fresh combiner per scenario. */
    private final Combiner combiner = new Combiner(new Counting());
    /** The combiner's own state: touched only by whoever holds the flag. */
    private long count;
    /** Whether a step runs; two at once would break the flag's promise, and answer -1. */
    private boolean stepping;
    private boolean overlapped;

    public CombinerLincheckTest() {
    }

    @Operation
    public long take() {
        CasJob job = new NumberJob();
        combiner.submit(job);
        return (Long) combiner.await(job);
    }

    @Test
    void stress() {
        new StressOptions().iterations(20).invocationsPerIteration(500).threads(3).actorsPerThread(3)
                .check(getClass());
    }

    /** A step answers every queued job with the next number. */
    private final class Counting implements Combiner.Work {
        @Override
        public void step(Combiner owner) {
            if (stepping) {
                overlapped = true;
            }
            stepping = true;
            CasJob job;
            while ((job = owner.poll()) != null) {
                job.answer(overlapped ? -1L : ++count);
                job.complete();
            }
            stepping = false;
        }

        @Override
        public void wakeSettler() {
        }
    }

    private static final class NumberJob extends CasJob {
        @Override
        List<String> keys() {
            return List.of();
        }

        @Override
        void compute(CasRound round) {
            throw new UnsupportedOperationException("answered by the step");
        }
    }
}
