package dev.quota.bench;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.redisson.api.RedissonClient;

/**
 * 5. The transfer decision over many customers: each decision takes from the five buckets of the
 * demo's transfer ({@link TransferLimits}), measured for this module and the layered Lua floor,
 * next to the one-limit decision of each in the same slices (the target compares the two): first
 * closed loop (the peak), then paced at half the slowest peak (5b: latency at a load every limiter
 * carries, where a p50 is the decision's own time rather than the queue 64 callers build at the
 * peak); then an exactness check with one bucket at a time made tight.
 */
final class TransferScenario {

    /** Customers of the exactness check: few, so 64 callers run each one's buckets dry at once. */
    static final int CHECK_CUSTOMERS = 8;
    /** How long each limiter hammers each tight bucket. */
    static final Duration CHECK_TIME = Duration.ofSeconds(1);

    private final Settings settings;
    private final RedisUnderTest redis;
    private final Network network;
    private final Comparison comparison;
    private final PrintStream log;

    TransferScenario(Settings settings, RedisUnderTest redis, Network network, Comparison comparison,
                     PrintStream log) {
        this.settings = settings;
        this.redis = redis;
        this.network = network;
        this.comparison = comparison;
        this.log = log;
    }

    /**
     * One limiter against one tight bucket.
     *
     * @param rtt       the network's added round trip
     * @param limiter   the limiter's label
     * @param bucket    which bucket was tight, e.g. {@code plan hourly 30}
     * @param requests  decisions asked for
     * @param exactness admitted against what the limits allow, summed over the customers; the shared
     *                  bucket counts as one more "over" when the customers together got beyond it
     * @param errors    decisions the limiter failed to make
     */
    record Check(Duration rtt, String limiter, String bucket, long requests, Tally.Exactness exactness,
                 long errors) {
    }

    /** The transfer kinds on {@link TransferLimits#THROUGHPUT}, the one-limit kinds on scenario 1's limit. */
    private record Mixed(TransferLimits transfer, LimitSpec single) implements Workload {
        @Override
        public Contender create(Kind kind, RedissonClient client, String namespace) {
            return (kind.transfer() ? transfer : single).create(kind, client, namespace);
        }

        @Override
        public Tally.Exactness exactness(Kind kind, Tally tally, long windowNanos, int from, int to) {
            return (kind.transfer() ? transfer : single).exactness(kind, tally, windowNanos, from, to);
        }

        @Override
        public int keysPerCustomer(Kind kind) {
            return (kind.transfer() ? transfer : single).keysPerCustomer(kind);
        }
    }

    /**
     * {@code settings.customers()} customers, uniform random, 64 callers, one instance; primed
     * before each slice like scenario 1, so the slice sees existing buckets.
     */
    List<RunResult> throughput(List<Kind> kinds) {
        int customers = settings.customers();
        String title = String.format(Locale.ROOT, "5. transfer decision, many customers (%,d customers, 5 buckets: %s;"
                + " one-limit decisions on %s; %d callers, 1 instance)", customers, TransferLimits.THROUGHPUT,
                Scenarios.MANY_LIMIT, settings.callers());
        Phase.Picker picker = (random, caller) -> random.nextInt(customers);
        long slice = settings.measureNanos() / Comparison.ROUNDS;
        return comparison.run(title, kinds, true, 1, new Mixed(TransferLimits.THROUGHPUT, Scenarios.MANY_LIMIT),
                customers, 0, -1, (contenders, tally, measure) -> measure
                        ? Phase.closedLoop(contenders, settings.callers(), picker, slice, tally, -1)
                        : Phase.sweep(contenders, settings.callers(), customers, tally));
    }

    /**
     * 5c. The same decisions over {@code --instances} instances (8 by default; separate Redis
     * clients), each caller on one of them, customers uniform random: every decision also takes
     * from the bucket of the {@code transfers} rule that every customer shares, so every instance
     * writes that one key, the fleet's hottest. Primed like 5, each customer by one instance.
     */
    List<RunResult> sharedRule(List<Kind> kinds) {
        int customers = settings.customers();
        String title = String.format(Locale.ROOT, "5c. transfer decision, %d instances on the shared rule (%,d"
                + " customers, 5 buckets: %s; %d callers over %d instances)", settings.instances(), customers,
                TransferLimits.THROUGHPUT, settings.callers(), settings.instances());
        Phase.Picker picker = (random, caller) -> random.nextInt(customers);
        long slice = settings.measureNanos() / Comparison.ROUNDS;
        return comparison.run(title, kinds, true, settings.instances(),
                new Mixed(TransferLimits.THROUGHPUT, Scenarios.MANY_LIMIT), customers, 0, -1,
                (contenders, tally, measure) -> measure
                        ? Phase.closedLoop(contenders, settings.callers(), picker, slice, tally, -1)
                        : Phase.sweep(contenders, settings.callers(), customers, tally));
    }

    /**
     * 5b. The same decisions paced at {@code rate} per second in total, from as many threads as
     * callers, customers spread uniformly; latency counts from each decision's scheduled time.
     */
    List<RunResult> paced(List<Kind> kinds, double rate) {
        int customers = settings.customers();
        String title = String.format(Locale.ROOT, "5b. transfer decision, paced (%,.0f decisions/s, half the slowest"
                + " peak of 5; %,d customers, 1 instance)", rate, customers);
        long slice = settings.measureNanos() / Comparison.ROUNDS;
        return comparison.run(title, kinds, true, 1, new Mixed(TransferLimits.THROUGHPUT, Scenarios.MANY_LIMIT),
                customers, 0, -1, (contenders, tally, measure) -> measure
                        ? Phase.paced(contenders, settings.callers(), rate, k -> spread(k, customers), slice, tally, -1)
                        : Phase.sweep(contenders, settings.callers(), customers, tally));
    }

    /** Request {@code k}'s customer: a fixed, uniform-looking spread over {@code 0 .. customers-1}. */
    static int spread(long k, int customers) {
        long z = (k + 1) * 0x9E3779B97F4A7C15L;
        z ^= z >>> 31;
        return (int) Long.remainderUnsigned(z, customers);
    }

    /**
     * Each bucket tight in turn ({@link TransferLimits#VARIANTS}): {@link #CHECK_CUSTOMERS}
     * customers, 64 callers for {@link #CHECK_TIME}, fresh keys, every admission counted against
     * what the limits allow from the moment the limiter was created.
     */
    List<Check> exactness(List<Kind> kinds) {
        List<Check> checks = new ArrayList<>();
        int round = 0;
        for (TransferLimits.Variant variant : TransferLimits.VARIANTS) {
            for (Kind kind : kinds) {
                redis.flush();
                try (Comparison.Fixture fixture = Comparison.Fixture.open(kind, "x" + round++, 1, variant.limits(),
                        CHECK_CUSTOMERS, settings, network)) {
                    Phase.Measured m = Phase.closedLoop(fixture.contenders, settings.callers(),
                            (random, caller) -> random.nextInt(CHECK_CUSTOMERS), CHECK_TIME.toNanos(), fixture.tally,
                            -1);
                    long window = System.nanoTime() - fixture.opened;
                    Tally.Exactness e = variant.limits().exactness(kind, fixture.tally, window, 0, CHECK_CUSTOMERS);
                    Check check = new Check(network.rtt(), kind.label(), variant.bucket(), m.decisions(), e, m.errors);
                    checks.add(check);
                    log.printf("  %-32s %-34s admitted %5d of %5d allowed (%d requests)%s%s%n", kind.label(),
                            variant.bucket(), e.admitted(), e.allowed(), m.decisions(),
                            e.exact() ? "" : "  OVER-ADMITTED", m.errors > 0 ? "  errors " + m.errors : "");
                }
            }
        }
        redis.flush();
        return checks;
    }
}
