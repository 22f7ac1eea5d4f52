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
import java.util.function.LongToIntFunction;

/**
 * The in-process scenarios. Each measures every limiter against the same redis-server in two
 * slices (A B C D, then D C B A), counting INFO commandstats and the client's own round trips over
 * the measured slices only.
 */
final class Scenarios {

    /** Scenario 1's limit: 1,000 per hour, burst 1,000, per customer (a typical API plan): all admitted. */
    static final LimitSpec MANY_LIMIT = new LimitSpec(1_000, Duration.ofHours(1));
    /** Scenario 2's limit for the one hot key: 5,000 per second, burst 5,000. */
    static final LimitSpec HOT_LIMIT = new LimitSpec(5_000, Duration.ofSeconds(1));
    /** Scenario 3's limit for every customer: 100 per second, burst 100. */
    static final LimitSpec FLOOD_LIMIT = new LimitSpec(100, Duration.ofSeconds(1));
    /** Scenario 3: the normal customers, each sending 4 per second. */
    static final int FLOOD_NORMAL_CUSTOMERS = 500;
    static final double FLOOD_NORMAL_RATE = 4;
    /** Scenario 3: the abuser sends 20 times its limit. */
    static final double FLOOD_FACTOR = 20;

    /** Slices per limiter: in order, then in reverse. */
    static final int ROUNDS = 2;

    private final Settings settings;
    private final RedisUnderTest redis;
    private final PrintStream log;

    Scenarios(Settings settings, RedisUnderTest redis, PrintStream log) {
        this.settings = settings;
        this.redis = redis;
        this.log = log;
    }

    /**
     * 1. Many customers: {@code settings.customers()} keys, uniform random, 64 callers, one instance.
     * Before each slice the limiter touches every customer once (untimed), so the slice sees existing
     * buckets, as a service whose customers come back within their keys' lifetime does (a bucket
     * touched once lives about a minute); those touches count toward exactness.
     */
    List<RunResult> manyCustomers(List<Kind> kinds) {
        int customers = settings.customers();
        String title = f("1. many customers (%,d customers, %s each, %d callers, 1 instance)", customers,
                MANY_LIMIT, settings.callers());
        Phase.Picker picker = (random, caller) -> random.nextInt(customers);
        return compare(title, kinds, true, 1, MANY_LIMIT, customers, 0, -1,
                (contenders, tally, measure) -> measure
                        ? Phase.closedLoop(contenders, settings.callers(), picker, sliceNanos(), tally, -1)
                        : Phase.sweep(contenders, settings.callers(), customers, tally));
    }

    /** 2. One hot customer: one key, 64 callers over two instances (two Redisson clients). */
    List<RunResult> hotCustomer(List<Kind> kinds) {
        String title = f("2. one hot customer (1 key, %s, %d callers over 2 instances)", HOT_LIMIT,
                settings.callers());
        return compare(title, kinds, false, 2, HOT_LIMIT, 1, 1, -1, (contenders, tally, measure) -> measure
                ? Phase.closedLoop(contenders, settings.callers(), (r, c) -> 0, sliceNanos(), tally, -1)
                : Phase.closedLoop(contenders, settings.callers(), (r, c) -> 1, settings.warmupNanos(), null, -1));
    }

    /**
     * 3. Abusive flood: customer 0 sends 20 times its limit while 500 others send 4 per second each,
     * paced, from 32 threads on one instance.
     */
    List<RunResult> flood(List<Kind> kinds) {
        int customers = 1 + FLOOD_NORMAL_CUSTOMERS;
        double abuserRate = FLOOD_FACTOR * FLOOD_LIMIT.capacity() * 1e9 / FLOOD_LIMIT.period().toNanos();
        double normalRate = FLOOD_NORMAL_CUSTOMERS * FLOOD_NORMAL_RATE;
        double rate = abuserRate + normalRate;
        double abuserShare = abuserRate / rate;
        String title = f("3. abusive flood (1 customer at 20x its %s, %d others at %.0f/s each, paced, 1 instance)",
                FLOOD_LIMIT, FLOOD_NORMAL_CUSTOMERS, FLOOD_NORMAL_RATE);
        return compare(title, kinds, false, 1, FLOOD_LIMIT, customers, customers, 0, (contenders, tally, measure) -> {
            int offset = measure ? 0 : customers;
            // request k goes to the abuser when the running share says so, else to the next normal customer
            LongToIntFunction mix = k -> {
                long abuserBefore = (long) Math.floor(k * abuserShare);
                long abuserAfter = (long) Math.floor((k + 1) * abuserShare);
                if (abuserAfter > abuserBefore) {
                    return offset;
                }
                return offset + 1 + (int) ((k - abuserBefore) % FLOOD_NORMAL_CUSTOMERS);
            };
            return Phase.paced(contenders, 32, rate, mix, measure ? sliceNanos() : settings.warmupNanos(),
                    measure ? tally : null, offset);
        });
    }

    /** Runs one phase of load: the warm-up or priming (measure false) or a measured slice. */
    interface Load {
        Phase.Measured run(Contender[] contenders, Tally tally, boolean measure);
    }

    private long sliceNanos() {
        return settings.measureNanos() / ROUNDS;
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
    private List<RunResult> compare(String title, List<Kind> kinds, boolean persistent, int instanceCount,
                                    LimitSpec limit, int customers, int warmCustomers, int watched, Load load) {
        Map<Kind, Accumulated> results = new EnumMap<>(Kind.class);
        redis.flush();
        for (int round = 0; round < ROUNDS; round++) {
            List<Kind> order = new ArrayList<>(kinds);
            if (round % 2 == 1) {
                Collections.reverse(order);
            }
            for (Kind kind : order) {
                Fixture fixture = Fixture.open(kind, (persistent ? "k" : "r") + round, instanceCount, limit,
                        customers + warmCustomers, settings, redis);
                try {
                    if (persistent) {
                        // primed right before its slice: a bucket touched once expires about a minute
                        // later (the time it needs to refill, plus the store's 60 s margin)
                        load.run(fixture.contenders, fixture.tally, false);
                    }
                    long measureStart = slice(fixture, persistent, load, watched);
                    // a priming on the measured keys counts toward their limit: then the window runs from it
                    long window = System.nanoTime() - (persistent ? fixture.opened : measureStart);
                    Accumulated acc = results.computeIfAbsent(kind, k -> new Accumulated());
                    acc.add(fixture, watched);
                    acc.exactness = acc.exactness.plus(fixture.tally.exactness(limit, window, 0, customers));
                    if (watched >= 0) {
                        acc.watchedAllowed += fixture.tally.exactness(limit, window, watched, watched + 1).allowed();
                    }
                } finally {
                    fixture.close();
                    redis.flush();
                }
            }
        }
        List<RunResult> out = new ArrayList<>();
        for (Kind kind : kinds) {
            RunResult result = results.get(kind).result(title, kind, watched);
            report(result, results.get(kind));
            out.add(result);
        }
        return out;
    }

    /** Runs the warm-up (fresh fixtures only) and one measured slice; returns when measuring began. */
    private long slice(Fixture fixture, boolean persistent, Load load, int watched) {
        if (!persistent) {
            load.run(fixture.contenders, fixture.tally, false);
        }
        for (Instance in : fixture.instances) {
            in.counter().watch(watched >= 0 ? fixture.contenders[0].keyMarker(watched) : null);
            in.counter().reset();
        }
        redis.resetStats();
        double redisCpu = redis.cpuSeconds();
        long jvmCpu = RedisUnderTest.jvmCpuNanos();
        long measureStart = System.nanoTime();
        fixture.last = load.run(fixture.contenders, fixture.tally, true);
        fixture.lastJvmCpu = RedisUnderTest.jvmCpuNanos() - jvmCpu;
        fixture.lastRedisCpu = (long) ((redis.cpuSeconds() - redisCpu) * 1e9);
        fixture.lastStats = redis.commandStats();
        return measureStart;
    }

    private void report(RunResult r, Accumulated acc) {
        log.printf("  %-34s %9.0f/s  p50 %7.1f us  p99 %8.1f us  %.2f rt/dec  %.2f cmds/dec  cpu %.0f+%.0f us/dec"
                        + "  admitted %d of %d allowed%s%s%n", r.limiter(), r.throughput(), r.p50() / 1e3, r.p99() / 1e3,
                r.roundTripsPerDecision(), r.serverCommandsPerDecision(), r.clientCpuMicros(), r.redisCpuMicros(),
                r.exactness().admitted(),
                r.exactness().allowed(), r.exactness().exact() ? "" : "  OVER-ADMITTED",
                r.errors() > 0 ? "  errors " + r.errors() : "");
        log.println("      sent " + perDecision(acc.sent, r.decisions()) + "; server "
                + perDecision(r.serverCommands(), r.decisions()));
    }

    /** One limiter's instances, contenders and tally under one key namespace. */
    private static final class Fixture implements AutoCloseable {
        final List<Instance> instances = new ArrayList<>();
        final Contender[] contenders;
        final Tally tally;
        final long opened = System.nanoTime();
        Phase.Measured last;
        Map<String, Long> lastStats;
        long lastJvmCpu;
        long lastRedisCpu;

        private Fixture(int instanceCount, int customers) {
            this.contenders = new Contender[instanceCount];
            this.tally = new Tally(customers);
        }

        static Fixture open(Kind kind, String namespace, int instanceCount, LimitSpec limit, int customers,
                            Settings settings, RedisUnderTest redis) {
            Fixture fixture = new Fixture(instanceCount, customers);
            try {
                for (int i = 0; i < instanceCount; i++) {
                    Instance instance = Instance.connect(redis.uri(), settings.nettyThreads(), settings.poolSize());
                    fixture.instances.add(instance);
                    fixture.contenders[i] = kind.create(instance.client(), limit, namespace);
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
        final LatencyHistogram latency = new LatencyHistogram();
        final LatencyHistogram watchedLatency = new LatencyHistogram();
        final Map<String, Long> stats = new TreeMap<>();
        final Map<String, Long> sent = new TreeMap<>();
        long roundTrips;
        long watchedTrips;
        long jvmCpu;
        long redisCpu;
        long watchedDecisions;
        long watchedAdmitted;
        long watchedAllowed;
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
            redisCpu += fixture.lastRedisCpu;
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

        RunResult result(String title, Kind kind, int watched) {
            RunResult.Watched w = watched < 0 ? null : new RunResult.Watched(watchedDecisions, watchedAdmitted,
                    watchedAllowed, watchedTrips, watchedLatency.percentile(0.5), watchedLatency.percentile(0.99));
            return new RunResult(title, kind.label(), decisions, elapsedNanos, admitted, rejected, errors,
                    latency.percentile(0.5), latency.percentile(0.99), exactness, stats, roundTrips, w, jvmCpu, redisCpu);
        }
    }

    private static String perDecision(Map<String, Long> counts, long decisions) {
        StringBuilder out = new StringBuilder();
        counts.forEach((name, count) -> out.append(out.length() == 0 ? "" : " ").append(name.toLowerCase(Locale.ROOT))
                .append(String.format(Locale.ROOT, " %.3f", count / (double) decisions)));
        return out.toString();
    }

    private static String f(String format, Object... args) {
        return String.format(Locale.ROOT, format, args);
    }
}
