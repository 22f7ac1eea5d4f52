package dev.quota.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The bench's command line.
 *
 * @param quick        the smoke run: 1 s warm-up and 3 s measured per run instead of 3 s and 10 s
 * @param warmupNanos  warm-up per run (on other keys)
 * @param measureNanos measured window per run
 * @param callers      concurrent callers (and HTTP connections); default 64
 * @param customers    scenario 1's distinct customers; default 100,000 (quick: 10,000)
 * @param scenarios    which scenarios: many, hot1, hot, hot8, shared8, flood, http, transfer, alloc, hop; default all
 * @param limiters     which limiters, by {@link Kind} name; default all
 * @param nettyThreads overrides the store builder's netty threads when positive
 * @param poolSize     overrides the store builder's connection pool size when positive
 * @param chart        where the PNG goes; default docs/benchmarks.png for a full run (quick:
 *                     quota-bench/target/benchmarks-quick.png; some scenarios or limiters only:
 *                     quota-bench/target/benchmarks-part.png)
 * @param results      where the markdown tables go; default quota-bench/target/benchmarks.md
 * @param rtts         the round trips added to loopback, one pass over the scenarios each; default
 *                     0 (direct) and 0.5 ms (through the delay proxy)
 * @param transferParts which parts of scenario 5: peak, paced, exactness; default all
 * @param profile      a directory for JFR recordings of the measured slices only (one file each), or null
 * @param arrivedBodyBytes the HTTP scenario's {@code QuotaFeature.Builder.arrivedBodyBytes}, or -1 for the feature's
 * @param instances    the instances of scenarios 2b and 5c (each its own Redis client and service); default 8
 * @param hopRtt       the round trip scenario 7's proxy adds; default 4.5 ms
 * @param hopRounds    scenario 7's rounds of {@link HopScenario#PER_ROUND} requests per kind and side; default 5
 */
record Settings(boolean quick, long warmupNanos, long measureNanos, int callers, int customers, Set<String> scenarios,
                Set<Kind> limiters, int nettyThreads, int poolSize, Path chart, Path results, List<Duration> rtts,
                Set<String> transferParts, @Nullable Path profile, int arrivedBodyBytes, int instances,
                Duration hopRtt, int hopRounds) {

    /** Every scenario, in the order they run; all but hop once per {@code --redis-rtt}, hop once after them. */
    static final List<String> SCENARIOS = List.of("many", "hot1", "hot", "hot8", "shared8", "flood", "http", "transfer", "alloc", "hop");
    /** The parts of scenario 5, in the order they run (paced needs peak: it runs at half the slowest peak). */
    static final List<String> TRANSFER_PARTS = List.of("peak", "paced", "exactness");

    static final String USAGE = """
            usage: java -jar quota-bench/target/quota-bench.jar [options]   (from the repository root)

              --quick              smoke run, about 2 minutes: 1 s warm-up + 3 s per run (default 3 s + 10 s)
              --seconds N          measured seconds per run
              --warmup N           warm-up seconds per run
              --scenarios LIST     comma-separated: many,hot1,hot,hot8,shared8,flood,http,transfer,alloc,hop
                       (default: all; hop runs once, after the --redis-rtt passes, with its own proxy)
              --limiters LIST      comma-separated: quota,quota_read_first,quota_no_local,lua,
                                   rratelimiter,bucket4j_default,quota_transfer,lua_transfer
              --transfer-parts L   comma-separated parts of scenario 5: peak,paced,exactness (default: all;
                                   paced runs at half the peak, so it needs peak)
              --profile DIR        record the measured slices with JFR (settings "profile"), one file per
                                   slice and limiter, e.g. for `jfr print --events jdk.ExecutionSample`
              --redis-rtt LIST     round trips added between the clients and Redis, one pass over the
                                   scenarios each: 0 connects directly, anything else goes through a
                                   delaying proxy, e.g. 0,0.5ms or 250us (default 0,0.5ms)
              --callers N          concurrent callers and HTTP connections (default 64)
              --customers N        distinct customers in scenario 1 (default 100000; --quick: 10000)
              --netty-threads N    Redisson netty threads (default: what RedisStore's builder sets)
              --pool N             Redisson connection pool size (default: what RedisStore's builder sets)
              --instances N        instances of scenarios 2b and 5c, each its own Redis client (default 8)
              --chart FILE         the PNG to write (default docs/benchmarks.png for a full run; --quick,
                                   or some scenarios or limiters only: quota-bench/target/...)
              --results FILE       the markdown tables to write (default quota-bench/target/benchmarks.md)
              (JVM option) -Dquota.bench.leases=off   this module without leased shares of hot keys
              --arrived-body-bytes N  the HTTP scenario's QuotaFeature.Builder.arrivedBodyBytes: a transfer
                                   body of at most N bytes sent with its headers is decided in one store
                                   call (default: the feature's, 16384; 0: every body in two steps)
              --hop-rtt RTT        the round trip scenario 7 (hop) adds behind its proxy (default 4.5ms)
              --hop-rounds N       scenario 7's rounds of 15 requests of each kind on each side (default 5)
            """;

    static Settings parse(String[] args) {
        boolean quick = false;
        Double seconds = null;
        Double warmup = null;
        int callers = 64;
        int instances = Scenarios.MANY_INSTANCES;
        Integer customers = null;
        Set<String> scenarios = Set.copyOf(SCENARIOS);
        Set<String> transferParts = Set.copyOf(TRANSFER_PARTS);
        Path profile = null;
        List<Duration> rtts = List.of(Duration.ZERO, Duration.ofNanos(500_000));
        Set<Kind> limiters = EnumSet.allOf(Kind.class);
        int nettyThreads = 0;
        int pool = 0;
        Path chart = null;
        Path results = Path.of("quota-bench", "target", "benchmarks.md");
        int arrivedBodyBytes = -1;
        Duration hopRtt = Duration.ofNanos(4_500_000);
        int hopRounds = 5;
        List<String> rest = new ArrayList<>(List.of(args));
        while (!rest.isEmpty()) {
            String name = rest.remove(0);
            if (name.equals("--quick")) {
                quick = true;
                continue;
            }
            if (name.equals("--help") || name.equals("-h")) {
                throw new IllegalArgumentException("");
            }
            if (rest.isEmpty()) {
                throw new IllegalArgumentException(name + " needs a value");
            }
            String value = rest.remove(0);
            switch (name) {
                case "--seconds":
                    seconds = Double.parseDouble(value);
                    break;
                case "--warmup":
                    warmup = Double.parseDouble(value);
                    break;
                case "--scenarios":
                    scenarios = Set.of(value.split(","));
                    for (String scenario : scenarios) {
                        if (!SCENARIOS.contains(scenario)) {
                            throw new IllegalArgumentException("unknown scenario " + scenario + " (use "
                                    + String.join(",", SCENARIOS) + ")");
                        }
                    }
                    break;
                case "--transfer-parts":
                    transferParts = Set.of(value.split(","));
                    for (String part : transferParts) {
                        if (!TRANSFER_PARTS.contains(part)) {
                            throw new IllegalArgumentException("unknown part of scenario 5: " + part + " (use "
                                    + String.join(",", TRANSFER_PARTS) + ")");
                        }
                    }
                    if (transferParts.contains("paced") && !transferParts.contains("peak")) {
                        throw new IllegalArgumentException("--transfer-parts: paced runs at half the peak, add peak");
                    }
                    break;
                case "--profile":
                    profile = Path.of(value);
                    break;
                case "--redis-rtt":
                    rtts = new ArrayList<>();
                    for (String rtt : value.split(",")) {
                        rtts.add(parseRtt(rtt.trim()));
                    }
                    rtts = List.copyOf(rtts);
                    break;
                case "--limiters":
                    limiters = EnumSet.noneOf(Kind.class);
                    for (String kind : value.split(",")) {
                        limiters.add(Kind.valueOf(kind.toUpperCase(Locale.ROOT)));
                    }
                    break;
                case "--callers":
                    callers = Integer.parseInt(value);
                    break;
                case "--customers":
                    customers = Integer.parseInt(value);
                    break;
                case "--netty-threads":
                    nettyThreads = Integer.parseInt(value);
                    break;
                case "--pool":
                    pool = Integer.parseInt(value);
                    break;
                case "--chart":
                    chart = Path.of(value);
                    break;
                case "--results":
                    results = Path.of(value);
                    break;
                case "--instances":
                    instances = Integer.parseInt(value);
                    if (instances < 2) {
                        throw new IllegalArgumentException("--instances must be >= 2 but was " + value);
                    }
                    break;
                case "--arrived-body-bytes":
                    arrivedBodyBytes = Integer.parseInt(value);
                    if (arrivedBodyBytes < 0) {
                        throw new IllegalArgumentException("--arrived-body-bytes must be >= 0 but was " + value);
                    }
                    break;
                case "--hop-rtt":
                    try {
                        hopRtt = parseRtt(value.trim());
                    } catch (IllegalArgumentException e) {
                        throw new IllegalArgumentException(e.getMessage().replace("--redis-rtt", "--hop-rtt"), e);
                    }
                    if (hopRtt.isZero()) {
                        throw new IllegalArgumentException("--hop-rtt must be > 0 but was " + value);
                    }
                    break;
                case "--hop-rounds":
                    hopRounds = Integer.parseInt(value);
                    if (hopRounds < 1) {
                        throw new IllegalArgumentException("--hop-rounds must be >= 1 but was " + value);
                    }
                    break;
                default:
                    throw new IllegalArgumentException("unknown option " + name);
            }
        }
        double measureSeconds = seconds != null ? seconds : quick ? 3 : 10;
        double warmupSeconds = warmup != null ? warmup : quick ? 1 : 3;
        if (customers == null) {
            customers = quick ? 10_000 : 100_000;
        }
        if (chart == null) {
            // the docs' chart is a full run's: a part of one drawn there would stand for the whole
            boolean full = scenarios.containsAll(SCENARIOS) && limiters.containsAll(EnumSet.allOf(Kind.class));
            chart = quick ? Path.of("quota-bench", "target", "benchmarks-quick.png")
                    : full ? Path.of("docs", "benchmarks.png") : Path.of("quota-bench", "target", "benchmarks-part.png");
        }
        return new Settings(quick, (long) (warmupSeconds * 1e9), (long) (measureSeconds * 1e9), callers, customers,
                scenarios, limiters, nettyThreads, pool, chart, results, rtts, transferParts, profile,
                arrivedBodyBytes, instances, hopRtt, hopRounds);
    }

    /**
     * A round trip: a number with {@code ms}, {@code us} (or {@code µs}) or {@code s}; a bare number
     * is milliseconds. {@code 0.5ms}, {@code 500us} and {@code 0.5} are the same.
     *
     * @throws IllegalArgumentException if it is not such a number, or negative
     */
    static Duration parseRtt(String text) {
        String number = text;
        double nanosPerUnit = 1e6;
        for (String[] unit : new String[][] {{"ms", "1e6"}, {"us", "1e3"}, {"µs", "1e3"}, {"s", "1e9"}}) {
            if (text.endsWith(unit[0])) {
                number = text.substring(0, text.length() - unit[0].length());
                nanosPerUnit = Double.parseDouble(unit[1]);
                break;
            }
        }
        double nanos;
        try {
            nanos = Double.parseDouble(number.trim()) * nanosPerUnit;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--redis-rtt: not a round trip: \"" + text + "\" (use e.g. 0.5ms or 500us)");
        }
        if (!(nanos >= 0) || Double.isInfinite(nanos)) {
            throw new IllegalArgumentException("--redis-rtt must be >= 0 but was " + text);
        }
        return Duration.ofNanos(Math.round(nanos));
    }
}
