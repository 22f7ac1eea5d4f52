package dev.quota.bench;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.function.LongToIntFunction;

/**
 * The in-process one-limit scenarios (1 to 3), each run by a {@link Comparison}: every limiter
 * against the same redis-server through the same {@link Network}, in two slices.
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
    /** Scenarios 2b and 5c: instances on the one hot key, unless {@code --instances} says otherwise. */
    static final int MANY_INSTANCES = 8;

    private final Settings settings;
    private final Comparison comparison;

    Scenarios(Settings settings, Comparison comparison) {
        this.settings = settings;
        this.comparison = comparison;
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
        return comparison.run(title, kinds, true, 1, MANY_LIMIT, customers, 0, -1,
                (contenders, tally, measure) -> measure
                        ? Phase.closedLoop(contenders, settings.callers(), picker, sliceNanos(), tally, -1)
                        : Phase.sweep(contenders, settings.callers(), customers, tally));
    }

    /**
     * 2a. One hot customer served by one instance: every script on the key is this instance's, so
     * the next one goes before the last one's reply (pipelined compare-and-swap).
     */
    List<RunResult> hotCustomerOneInstance(List<Kind> kinds) {
        return hotCustomer(kinds, 1, "2a.");
    }

    /** 2. One hot customer: one key, 64 callers over two instances (two Redisson clients). */
    List<RunResult> hotCustomer(List<Kind> kinds) {
        return hotCustomer(kinds, 2, "2.");
    }

    /**
     * 2b. The same key over {@code --instances} instances (separate Redis clients; 8 by default): each
     * instance's script on the key fails whenever another wrote it since its last reply, so the
     * compare-and-swap attempts per decision show whether the key turns into a conflict storm.
     */
    List<RunResult> hotCustomerManyInstances(List<Kind> kinds) {
        return hotCustomer(kinds, settings.instances(), "2b.");
    }

    private List<RunResult> hotCustomer(List<Kind> kinds, int instances, String prefix) {
        String title = f("%s one hot customer (1 key, %s, %d callers over %d instance%s)", prefix, HOT_LIMIT,
                settings.callers(), instances, instances == 1 ? "" : "s");
        return comparison.run(title, kinds, false, instances, HOT_LIMIT, 1, 1, -1, (contenders, tally, measure) -> measure
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
        return comparison.run(title, kinds, false, 1, FLOOD_LIMIT, customers, customers, 0,
                (contenders, tally, measure) -> {
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

    private long sliceNanos() {
        return settings.measureNanos() / Comparison.ROUNDS;
    }

    private static String f(String format, Object... args) {
        return String.format(Locale.ROOT, format, args);
    }
}
