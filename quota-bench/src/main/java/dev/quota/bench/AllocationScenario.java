package dev.quota.bench;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * 6. What one decision allocates, without the noise of 64 callers on a shared machine: one caller
 * decides for every customer in turn (each key then exists and, for this module, is remembered),
 * and the JVM's per-thread counters give the bytes the calling thread allocated per decision, and
 * those of every other thread (the Redis client's I/O threads) apart. Sequential decisions send
 * one script each, so nothing is shared between decisions: this is a decision's own cost.
 */
final class AllocationScenario {

    /** Customers decided for in turn; each pass touches every one once. */
    static final int CUSTOMERS = 10_000;

    /**
     * One limiter's allocation.
     *
     * @param rtt          the network's added round trip
     * @param limiter      the limiter's label
     * @param callerBytes  bytes the calling thread allocated per decision
     * @param otherBytes   bytes the other threads allocated per decision (the delay proxy's left out)
     * @param errors       decisions the limiter failed to make in the measured pass
     */
    record Row(Duration rtt, String limiter, double callerBytes, double otherBytes, long errors) {
    }

    private AllocationScenario() {
    }

    /** Every kind of {@code kinds} in turn: a priming pass, a warm pass, then the measured pass. */
    static List<Row> run(List<Kind> kinds, Settings settings, RedisUnderTest redis, Network network,
                         PrintStream log) {
        List<Row> rows = new ArrayList<>();
        int round = 0;
        for (Kind kind : kinds) {
            Workload workload = kind.transfer() ? TransferLimits.THROUGHPUT : Scenarios.MANY_LIMIT;
            redis.flush();
            try (Comparison.Fixture fixture = Comparison.Fixture.open(kind, "a" + round++, 1, workload, CUSTOMERS,
                    settings, network)) {
                Contender contender = fixture.contenders[0];
                for (int pass = 0; pass < 2; pass++) {
                    for (int customer = 0; customer < CUSTOMERS; customer++) {
                        contender.acquire(customer);
                    }
                }
                long others = MemoryMeter.allocatedByLiveThreads(network.proxyThreadIds());
                long mine = MemoryMeter.allocatedByThisThread();
                long errors = 0;
                for (int customer = 0; customer < CUSTOMERS; customer++) {
                    if (contender.acquire(customer) == Outcome.ERROR) {
                        errors++;
                    }
                }
                mine = MemoryMeter.allocatedByThisThread() - mine;
                // the live threads' sum includes this one's: taken out again
                others = MemoryMeter.allocatedByLiveThreads(network.proxyThreadIds()) - others - mine;
                Row row = new Row(network.rtt(), kind.label(), mine / (double) CUSTOMERS, others / (double) CUSTOMERS,
                        errors);
                rows.add(row);
                log.printf("  %-34s calling thread %7.0f bytes/decision, other threads %6.0f%s%n", row.limiter(),
                        row.callerBytes(), row.otherBytes(), errors > 0 ? "  errors " + errors : "");
                String failure = contender.firstFailure();
                if (failure != null) {
                    log.println("      first failed decision: " + failure);
                }
            }
        }
        redis.flush();
        return rows;
    }
}
