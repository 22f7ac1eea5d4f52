package dev.quota.bench;

import java.time.Duration;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One contender in one scenario: throughput, latency, Redis commands and exactness.
 *
 * @param scenario        the scenario's title
 * @param rtt             the round trip the network added to loopback ({@link Network})
 * @param limiter         the contender's label
 * @param decisions       answered requests in the measured window
 * @param elapsedNanos    the measured window
 * @param admitted        requests admitted
 * @param rejected        requests rejected
 * @param errors          requests the limiter failed to decide: in the measured window, and in the
 *                        untimed priming where a scenario primes every customer first
 * @param p50             median latency, ns
 * @param p99             99th percentile latency, ns
 * @param exactness       admissions against the limit, summed over customers
 * @param serverCommands  INFO commandstats calls, commands run inside scripts included
 * @param roundTrips      commands the client wrote (round trips it paid)
 * @param watched         the watched customer's share (the flood's abuser), or null
 * @param clientCpuNanos  CPU the bench's JVM used in the measured window (the load threads too)
 * @param redisCpuNanos   CPU redis-server used in the measured window
 * @param proxyCpuNanos   CPU the delay proxy's threads used in the measured window (0 without one):
 *                        the simulated network's, left out of {@code clientCpuNanos}
 * @param allocatedBytes  bytes the bench JVM's threads allocated in the measured window (load threads
 *                        included, the delay proxy's left out)
 * @param callerAllocatedBytes of those, the load threads' own: the decisions' work on the calling
 *                        thread (this module computes there), without the Redis client's I/O threads
 * @param retained        what priming every customer left on the heap, or null where the scenario
 *                        does not prime
 * @param conflicts       compare-and-swap scripts that found a key changed ({@link Contender#conflicts})
 * @param gc              the collector's pauses that began in the measured slices ({@link GcPauses})
 */
public record RunResult(String scenario, Duration rtt, String limiter, long decisions, long elapsedNanos, long admitted,
                        long rejected, long errors, long p50, long p99, Tally.Exactness exactness,
                        Map<String, Long> serverCommands, long roundTrips, @Nullable Watched watched,
                        long clientCpuNanos, long redisCpuNanos, long proxyCpuNanos, long allocatedBytes, long callerAllocatedBytes,
                        @Nullable Retained retained, long conflicts, GcPauses.Window gc) {

    /**
     * Heap the limiter kept after touching every customer once: in use after a full collection
     * once primed, less in use after one right before, summed over the slices.
     *
     * @param bytes     the difference in bytes
     * @param customers customers primed
     * @param keys      bucket keys their decisions touch
     */
    public record Retained(long bytes, long customers, long keys) {

        /** Bytes kept per bucket key its decisions touch. */
        public double perKey() {
            return bytes / (double) keys;
        }

        /** Bytes kept per customer. */
        public double perCustomer() {
            return bytes / (double) customers;
        }
    }

    /** Bytes allocated per decision, by every thread of the bench JVM but the delay proxy's. */
    public double allocatedPerDecision() {
        return allocatedBytes / (double) decisions;
    }

    /** Bytes the calling threads allocated per decision. */
    public double callerAllocatedPerDecision() {
        return callerAllocatedBytes / (double) decisions;
    }

    /** Client CPU microseconds per decision: what the limiter costs the application, less noisy than time. */
    public double clientCpuMicros() {
        return clientCpuNanos / 1e3 / decisions;
    }

    /** The delay proxy's CPU microseconds per decision: what the simulated network hop costs this machine. */
    public double proxyCpuMicros() {
        return proxyCpuNanos / 1e3 / decisions;
    }

    /** redis-server CPU microseconds per decision. */
    public double redisCpuMicros() {
        return redisCpuNanos / 1e3 / decisions;
    }

    /** Decisions per second. */
    public double throughput() {
        return decisions * 1e9 / elapsedNanos;
    }

    /** Server-side commands per decision. */
    public double serverCommandsPerDecision() {
        return serverCommands.values().stream().mapToLong(Long::longValue).sum() / (double) decisions;
    }

    /** Client round trips per decision. */
    public double roundTripsPerDecision() {
        return roundTrips / (double) decisions;
    }

    /**
     * EVALSHA and EVAL calls per decision: for Bucket4j's compare-and-swap (this module and baseline
     * c) each is one CAS attempt; for the Lua baseline, the one script call of a decision.
     */
    /** Compare-and-swap conflicts per decision: scripts lost to another writer, each a round trip more. */
    public double conflictsPerDecision() {
        return conflicts / (double) decisions;
    }

    public double scriptsPerDecision() {
        return (serverCommands.getOrDefault("evalsha", 0L) + serverCommands.getOrDefault("eval", 0L))
                / (double) decisions;
    }

    /**
     * The watched customer's requests in a flood.
     *
     * @param decisions  its answered requests
     * @param admitted   of which admitted
     * @param allowed    the most its limit allowed (fresh bucket per slice: summed over slices)
     * @param roundTrips client commands naming its key
     * @param p50        its median latency, ns
     * @param p99        its 99th percentile latency, ns
     */
    public record Watched(long decisions, long admitted, long allowed, long roundTrips, long p50, long p99) {
    }

    /**
     * Round trips per rejected request of the watched customer beyond what its admitted requests
     * need, taking an admitted request's cost from the other customers (all admitted):
     * {@code (its round trips - its admitted x others' round trips per decision) / its rejections}.
     */
    public double extraRoundTripsPerRejected() {
        if (watched == null) {
            throw new IllegalStateException(limiter + " in " + scenario + " watched no customer");
        }
        long othersDecisions = decisions - watched.decisions();
        double perAdmitted = (roundTrips - watched.roundTrips()) / (double) othersDecisions;
        long rejectedWatched = watched.decisions() - watched.admitted();
        return (watched.roundTrips() - watched.admitted() * perAdmitted) / rejectedWatched;
    }
}
