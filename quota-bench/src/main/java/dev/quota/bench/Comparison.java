package dev.quota.bench;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/**
 * Runs one scenario's limiters against the same redis-server, through one {@link Network}, in
 * {@link #ROUNDS} slices (A B C D, then D C B A), counting INFO commandstats, the client's own round
 * trips and both processes' CPU over the measured slices only.
 */
final class Comparison {

    /** Slices per limiter: in order, then in reverse. */
    static final int ROUNDS = 2;

    private final Settings settings;
    private final RedisUnderTest redis;
    private final Network network;
    private final PrintStream log;
    private final Profiler profiler;

    Comparison(Settings settings, RedisUnderTest redis, Network network, PrintStream log, Profiler profiler) {
        this.settings = settings;
        this.redis = redis;
        this.network = network;
        this.log = log;
        this.profiler = profiler;
    }

    /** Runs one phase of load: the warm-up or priming (measure false) or a measured slice. */
    interface Load {
        Phase.Measured run(Contender[] contenders, Tally tally, boolean measure);
    }

    /**
     * Measures every limiter in {@link #ROUNDS} slices, in order then in reverse (A B C D D C B A),
     * so drift on a shared machine falls on all alike.
     *
     * @param persistent    buckets primed by the warm-up (every customer touched once, counted toward
     *                      exactness) right before each slice (scenario 1); else a warm-up on other
     *                      keys; fresh keys per slice either way
     * @param warmCustomers customers after {@code customers} that the warm-up uses (0: the warm-up
     *                      uses the measured customers and counts toward exactness)
     * @param watched       the customer whose requests and commands are counted apart, or -1
     */
    List<RunResult> run(String title, List<Kind> kinds, boolean persistent, int instanceCount, Workload workload,
                        int customers, int warmCustomers, int watched, Load load) {
        Map<Kind, Accumulated> results = new EnumMap<>(Kind.class);
        redis.flush();
        for (int round = 0; round < ROUNDS; round++) {
            List<Kind> order = new ArrayList<>(kinds);
            if (round % 2 == 1) {
                Collections.reverse(order);
            }
            for (Kind kind : order) {
                Fixture fixture = Fixture.open(kind, (persistent ? "k" : "r") + round, instanceCount, workload,
                        customers + warmCustomers, settings, network);
                try {
                    long primingErrors = 0;
                    long retained = 0;
                    if (persistent) {
                        long before = MemoryMeter.retainedHeap();
                        // primed right before its slice: a bucket touched once expires about a minute
                        // later (the time it needs to refill, plus the store's 60 s margin)
                        primingErrors = load.run(fixture.contenders, fixture.tally, false).errors;
                        retained = MemoryMeter.retainedHeap() - before;
                    }
                    String name = title.substring(0, title.indexOf(' ')) + " " + Network.label(network.rtt()) + " "
                            + kind.label() + " " + round;
                    long measureStart = slice(fixture, persistent, load, watched, name);
                    // a priming on the measured keys counts toward their limit: then the window runs from it
                    long window = System.nanoTime() - (persistent ? fixture.opened : measureStart);
                    Accumulated acc = results.computeIfAbsent(kind, k -> new Accumulated());
                    acc.add(fixture, watched);
                    if (persistent) {
                        acc.retainedBytes += retained;
                        acc.retainedCustomers += customers;
                        acc.retainedKeys += (long) customers * workload.keysPerCustomer(kind);
                    }
                    // the priming's answers count toward exactness, so its failures are reported too
                    acc.errors += primingErrors;
                    acc.exactness = acc.exactness.plus(workload.exactness(kind, fixture.tally, window, 0, customers));
                    if (watched >= 0) {
                        acc.watchedAllowed += workload.exactness(kind, fixture.tally, window, watched, watched + 1)
                                .allowed();
                    }
                } finally {
                    fixture.close();
                    redis.flush();
                }
            }
        }
        List<RunResult> out = new ArrayList<>();
        for (Kind kind : kinds) {
            RunResult result = results.get(kind).result(title, network.rtt(), kind, watched);
            report(result, results.get(kind));
            out.add(result);
        }
        return out;
    }

    /** Runs the warm-up (fresh fixtures only) and one measured slice; returns when measuring began. */
    private long slice(Fixture fixture, boolean persistent, Load load, int watched, String name) {
        if (!persistent) {
            load.run(fixture.contenders, fixture.tally, false);
        }
        for (Instance in : fixture.instances) {
            in.counter().watch(watched >= 0 ? fixture.contenders[0].keyMarker(watched) : null);
            in.counter().reset();
        }
        redis.resetStats();
        double redisCpu = redis.cpuSeconds();
        long jvmCpu = network.clientCpuNanos();
        long proxyCpu = network.proxyCpuNanos();
        long allocated = MemoryMeter.allocatedByLiveThreads(network.proxyThreadIds());
        long conflicts = conflicts(fixture);
        long measureStart = System.nanoTime();
        fixture.lastGcFrom = GcPauses.now();
        try (Profiler.Slice recording = profiler.start(name)) {
            fixture.last = load.run(fixture.contenders, fixture.tally, true);
        }
        fixture.lastGcTo = GcPauses.now();
        // the load threads counted their own; they are gone by now, so the others' is all that is left
        fixture.lastAllocated = MemoryMeter.allocatedByLiveThreads(network.proxyThreadIds()) - allocated
                + fixture.last.callerAllocatedBytes;
        fixture.lastCallerAllocated = fixture.last.callerAllocatedBytes;
        fixture.lastJvmCpu = network.clientCpuNanos() - jvmCpu;
        fixture.lastProxyCpu = network.proxyCpuNanos() - proxyCpu;
        fixture.lastRedisCpu = (long) ((redis.cpuSeconds() - redisCpu) * 1e9);
        fixture.lastStats = redis.commandStats();
        fixture.lastConflicts = conflicts(fixture) - conflicts;
        for (Contender contender : fixture.contenders) {
            String failure = contender.firstFailure();
            if (failure != null) {
                log.println("      first failed decision: " + failure);
                break;
            }
        }
        return measureStart;
    }

    private static long conflicts(Fixture fixture) {
        long sum = 0;
        for (Contender contender : fixture.contenders) {
            sum += contender.conflicts();
        }
        return sum;
    }

    private void report(RunResult r, Accumulated acc) {
        log.printf("  %-34s %9.0f/s  p50 %7.1f us  p99 %8.1f us  %.2f rt/dec  %.2f cmds/dec  cpu %.0f+%.0f us/dec"
                        + "  admitted %d of %d allowed%s%s%n", r.limiter(), r.throughput(), r.p50() / 1e3, r.p99() / 1e3,
                r.roundTripsPerDecision(), r.serverCommandsPerDecision(), r.clientCpuMicros(), r.redisCpuMicros(),
                r.exactness().admitted(),
                r.exactness().allowed(), r.exactness().exact() ? "" : "  OVER-ADMITTED",
                r.errors() > 0 ? "  errors " + r.errors() : "");
        log.println("      sent " + perDecision(acc.sent, r.decisions()) + "; server "
                + perDecision(r.serverCommands(), r.decisions())
                + (r.conflicts() > 0 ? String.format(Locale.ROOT, "; conflicts %.3f", r.conflictsPerDecision()) : ""));
        GcPauses.Window gc = r.gc();
        log.printf("      gc: %d pauses, longest %d ms, %d ms in all (%.1f %% of the slices), heap after a pause at most %d MB%n",
                gc.pauses(), gc.longestMillis(), gc.totalMillis(), 100 * gc.pausedShare(r.elapsedNanos()),
                gc.heapAfterBytes() >> 20);
        RunResult.Retained kept = r.retained();
        log.printf("      allocated %.0f bytes/decision (%.0f on the calling threads)%s%n", r.allocatedPerDecision(),
                r.callerAllocatedPerDecision(), kept == null ? ""
                : String.format(Locale.ROOT, "; kept %.0f bytes per key, %.0f per customer", kept.perKey(),
                kept.perCustomer()));
    }

    /** One limiter's instances, contenders and tally under one key namespace. */
    static final class Fixture implements AutoCloseable {
        final List<Instance> instances = new ArrayList<>();
        final Contender[] contenders;
        final Tally tally;
        final long opened = System.nanoTime();
        Phase.Measured last;
        Map<String, Long> lastStats;
        long lastJvmCpu;
        long lastRedisCpu;
        long lastProxyCpu;
        long lastAllocated;
        long lastCallerAllocated;
        long lastConflicts;
        /** The measured slice on {@link GcPauses#now()}'s clock. */
        long lastGcFrom;
        long lastGcTo;

        private Fixture(int instanceCount, int customers) {
            this.contenders = new Contender[instanceCount];
            this.tally = new Tally(customers);
        }

        static Fixture open(Kind kind, String namespace, int instanceCount, Workload workload, int customers,
                            Settings settings, Network network) {
            Fixture fixture = new Fixture(instanceCount, customers);
            QuotaContender.fleet = instanceCount;
            try {
                for (int i = 0; i < instanceCount; i++) {
                    Instance instance = Instance.connect(network.clientUri(), settings.nettyThreads(),
                            settings.poolSize());
                    fixture.instances.add(instance);
                    fixture.contenders[i] = workload.create(kind, instance.client(), namespace);
                    fixture.contenders[i].prepare(customers);
                }
                return fixture;
            } catch (RuntimeException e) {
                fixture.close();
                throw e;
            }
        }

        @Override
        public void close() {
            for (Contender c : contenders) {
                if (c != null) {
                    c.close();
                }
            }
            instances.forEach(Instance::close);
        }
    }

    /** One limiter's slices added up. */
    private static final class Accumulated {
        long decisions;
        long elapsedNanos;
        long admitted;
        long rejected;
        long errors;
        final Histogram latency = Latencies.histogram();
        final Histogram watchedLatency = Latencies.histogram();
        final Map<String, Long> stats = new TreeMap<>();
        final Map<String, Long> sent = new TreeMap<>();
        long roundTrips;
        long watchedTrips;
        long jvmCpu;
        long redisCpu;
        long proxyCpu;
        long allocated;
        long callerAllocated;
        long conflicts;
        long retainedBytes;
        long retainedCustomers;
        long retainedKeys;
        long watchedDecisions;
        long watchedAdmitted;
        long watchedAllowed;
        /** The measured slices on {@link GcPauses#now()}'s clock, from and to: their pauses are read at the end, all reported by then. */
        final List<long[]> gcWindows = new ArrayList<>();
        Tally.Exactness exactness = new Tally.Exactness(0, 0, 0, 0);

        void add(Fixture fixture, int watched) {
            Phase.Measured m = fixture.last;
            decisions += m.decisions();
            elapsedNanos += m.elapsedNanos;
            admitted += m.admitted;
            rejected += m.rejected;
            errors += m.errors;
            latency.add(m.latency);
            watchedLatency.add(m.watchedLatency);
            fixture.lastStats.forEach((k, v) -> stats.merge(k, v, Long::sum));
            jvmCpu += fixture.lastJvmCpu;
            proxyCpu += fixture.lastProxyCpu;
            redisCpu += fixture.lastRedisCpu;
            allocated += fixture.lastAllocated;
            callerAllocated += fixture.lastCallerAllocated;
            conflicts += fixture.lastConflicts;
            gcWindows.add(new long[] {fixture.lastGcFrom, fixture.lastGcTo});
            for (Instance in : fixture.instances) {
                roundTrips += in.counter().commands();
                watchedTrips += in.counter().watchedCommands();
                in.counter().byName().forEach((k, v) -> sent.merge(k, v, Long::sum));
            }
            if (watched >= 0) {
                // fresh fixtures only: their tally holds this slice alone
                watchedDecisions += fixture.tally.requests(watched);
                watchedAdmitted += fixture.tally.admitted(watched);
            }
        }

        RunResult result(String title, Duration rtt, Kind kind, int watched) {
            GcPauses.Window gc = GcPauses.Window.NONE;
            for (long[] w : gcWindows) {
                gc = gc.plus(GcPauses.between(w[0], w[1]));
            }
            RunResult.Watched w = watched < 0 ? null : new RunResult.Watched(watchedDecisions, watchedAdmitted,
                    watchedAllowed, watchedTrips, watchedLatency.getValueAtPercentile(50), watchedLatency.getValueAtPercentile(99));
            return new RunResult(title, rtt, kind.label(), decisions, elapsedNanos, admitted, rejected, errors,
                    latency.getValueAtPercentile(50), latency.getValueAtPercentile(99), exactness, stats, roundTrips, w, jvmCpu, redisCpu,
                    proxyCpu, allocated, callerAllocated, retainedCustomers == 0 ? null
                    : new RunResult.Retained(retainedBytes, retainedCustomers, retainedKeys), conflicts, gc);
        }
    }

    private static String perDecision(Map<String, Long> counts, long decisions) {
        StringBuilder out = new StringBuilder();
        counts.forEach((name, count) -> out.append(out.length() == 0 ? "" : " ").append(name.toLowerCase(Locale.ROOT))
                .append(String.format(Locale.ROOT, " %.3f", count / (double) decisions)));
        return out.toString();
    }

}
