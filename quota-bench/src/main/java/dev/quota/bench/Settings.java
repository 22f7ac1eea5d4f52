package dev.quota.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The bench's command line.
 *
 * @param quick        the smoke run: 1 s warm-up and 3 s measured per run instead of 3 s and 10 s
 * @param warmupNanos  warm-up per run (on other keys)
 * @param measureNanos measured window per run
 * @param callers      concurrent callers (and HTTP connections); default 64
 * @param customers    scenario 1's distinct customers; default 100,000 (quick: 10,000)
 * @param scenarios    which scenarios: many, hot, flood, http; default all
 * @param limiters     which limiters, by {@link Kind} name; default all
 * @param nettyThreads overrides the store builder's netty threads when positive
 * @param poolSize     overrides the store builder's connection pool size when positive
 * @param chart        where the PNG goes; default docs/benchmarks.png (quick: quota-bench/target/benchmarks-quick.png)
 * @param results      where the markdown tables go; default quota-bench/target/benchmarks.md
 */
record Settings(boolean quick, long warmupNanos, long measureNanos, int callers, int customers, Set<String> scenarios,
                Set<Kind> limiters, int nettyThreads, int poolSize, Path chart, Path results) {

    static final String USAGE = """
            usage: java -jar quota-bench/target/quota-bench.jar [options]   (from the repository root)

              --quick              smoke run, about 2 minutes: 1 s warm-up + 3 s per run (default 3 s + 10 s)
              --seconds N          measured seconds per run
              --warmup N           warm-up seconds per run
              --scenarios LIST     comma-separated: many,hot,flood,http (default: all)
              --limiters LIST      comma-separated: quota,quota_read_first,quota_no_local,lua,
                                   rratelimiter,bucket4j_default
              --callers N          concurrent callers and HTTP connections (default 64)
              --customers N        distinct customers in scenario 1 (default 100000; --quick: 10000)
              --netty-threads N    Redisson netty threads (default: what RedisStore's builder sets)
              --pool N             Redisson connection pool size (default: what RedisStore's builder sets)
              --chart FILE         the PNG to write (default docs/benchmarks.png; --quick: quota-bench/target/...)
              --results FILE       the markdown tables to write (default quota-bench/target/benchmarks.md)
            """;

    static Settings parse(String[] args) {
        boolean quick = false;
        Double seconds = null;
        Double warmup = null;
        int callers = 64;
        Integer customers = null;
        Set<String> scenarios = Set.of("many", "hot", "flood", "http");
        Set<Kind> limiters = EnumSet.allOf(Kind.class);
        int nettyThreads = 0;
        int pool = 0;
        Path chart = null;
        Path results = Path.of("quota-bench", "target", "benchmarks.md");
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
            chart = quick ? Path.of("quota-bench", "target", "benchmarks-quick.png") : Path.of("docs", "benchmarks.png");
        }
        return new Settings(quick, (long) (warmupSeconds * 1e9), (long) (measureSeconds * 1e9), callers, customers,
                scenarios, limiters, nettyThreads, pool, chart, results);
    }
}
