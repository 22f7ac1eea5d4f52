package dev.quota.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Runs the scenarios against a redis-server it starts on loopback, once per configured network
 * round trip ({@code --redis-rtt}: directly, then through a delaying proxy), prints the tables, and
 * writes them as markdown and the chart as a PNG.
 *
 * <pre>
 * mvn -q -B install -DskipTests &amp;&amp; java -jar quota-bench/target/quota-bench.jar          # about 20 minutes
 * java -jar quota-bench/target/quota-bench.jar --quick                                  # about 2 minutes
 * java -jar quota-bench/target/quota-bench.jar grid [--quick]    # the JCache grid scenario, {@link dev.quota.bench.grid.GridBench}
 * java -jar quota-bench/target/quota-bench.jar leases [--quick]  # in-flight leases on Redis, {@link LeaseBench}
 * java -jar quota-bench/target/quota-bench.jar decisions [--quick]  # the decision path at 1 to 64 threads (JMH), {@link dev.quota.bench.jmh.DecisionPathBench}
 * </pre>
 */
public final class BenchMain {

    /** Held so the level sticks: java.util.logging keeps loggers weakly. */
    private static final Logger QUIET = Logger.getLogger("");

    private BenchMain() {
    }

    /** Entry point; exit code 2 on bad options. */
    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("grid")) {
            dev.quota.bench.grid.GridBench.main(java.util.Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        if (args.length > 0 && args[0].equals("decisions")) {
            dev.quota.bench.jmh.DecisionPathBench.main(java.util.Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        if (args.length > 0 && args[0].equals("leases")) {
            LeaseBench.main(java.util.Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        System.setProperty("java.awt.headless", "true");
        // Grizzly and Jersey log every listener start at INFO through java.util.logging
        QUIET.setLevel(Level.SEVERE);
        Settings settings;
        try {
            settings = Settings.parse(args);
        } catch (IllegalArgumentException e) {
            if (!e.getMessage().isEmpty()) {
                System.err.println(e.getMessage());
            }
            System.err.print(Settings.USAGE);
            System.exit(e.getMessage().isEmpty() ? 0 : 2);
            return;
        }
        PrintStream log = System.out;
        long started = System.nanoTime();
        List<RunResult> runs = new ArrayList<>();
        List<HttpScenario.Row> http = new ArrayList<>();
        List<TransferScenario.Check> checks = new ArrayList<>();
        List<AllocationScenario.Row> allocation = new ArrayList<>();
        List<String> networks = new ArrayList<>();
        Profiler profiler = new Profiler(settings.profile());
        HopScenario.Result hop = null;
        String redisVersion;
        String sizing;
        try (RedisUnderTest redis = RedisUnderTest.start()) {
            redisVersion = redis.version();
            try (Instance probe = Instance.connect(redis.uri(), settings.nettyThreads(), settings.poolSize())) {
                sizing = probe.sizing();
            }
            log.println("redis-server " + redisVersion + " at " + redis.uri() + "; client: " + sizing);
            // hop runs once, after the passes, with a proxy of its own
            boolean passes = settings.scenarios().stream().anyMatch(s -> !s.equals("hop"));
            for (Duration rtt : passes ? settings.rtts() : List.<Duration>of()) {
                try (Network network = Network.open(redis, rtt)) {
                    log.println();
                    log.println("Redis round trip " + Network.label(rtt) + ": " + network.describe());
                    runPass(settings, redis, network, log, runs, http, checks, allocation, profiler);
                    networks.add(network.describe());
                }
            }
            if (settings.scenarios().contains("hop")) {
                log.println();
                log.println("7. one request at a time behind a hop of " + Network.label(settings.hopRtt()));
                hop = new HopScenario(settings, redis, log).run();
            }
        }
        String markdown = Report.render(settings, redisVersion, sizing, networks, runs, http, checks, allocation, hop,
                (System.nanoTime() - started) / 1e9);
        log.println();
        log.print(markdown);
        write(settings.results(), markdown);
        String subtitle = String.format(Locale.ROOT, "%d cores, Java %s, redis-server %s, %.0f s per run%s",
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"), redisVersion,
                settings.measureNanos() / 1e9, settings.quick() ? " (--quick)" : "");
        if (networks.isEmpty()) {
            // hop alone: nothing to chart, and the chart of the last full run stays as it is
            log.printf("wrote %s in %.0f s%n", settings.results(), (System.nanoTime() - started) / 1e9);
        } else {
            Chart.write(settings.chart(), subtitle, Chart.panels(runs, http, settings.rtts()));
            log.printf("wrote %s and %s in %.0f s%n", settings.results(), settings.chart(),
                    (System.nanoTime() - started) / 1e9);
        }
        System.exit(0);
    }

    /** Every scenario asked for, once, with the contenders' clients connecting through {@code network}. */
    private static void runPass(Settings settings, RedisUnderTest redis, Network network, PrintStream log,
                                List<RunResult> runs, List<HttpScenario.Row> http,
                                List<TransferScenario.Check> checks, List<AllocationScenario.Row> allocation,
                                Profiler profiler) {
        String at = " (Redis " + Network.label(network.rtt()) + ")";
        Comparison comparison = new Comparison(settings, redis, network, log, profiler);
        Scenarios scenarios = new Scenarios(settings, comparison);
        List<Kind> baselines = List.of(Kind.LUA, Kind.RRATELIMITER, Kind.BUCKET4J_DEFAULT);
        if (settings.scenarios().contains("many")) {
            log.println("1. many customers" + at);
            runs.addAll(scenarios.manyCustomers(chosen(settings, Kind.QUOTA, Kind.QUOTA_READ_FIRST, baselines)));
        }
        if (settings.scenarios().contains("hot1")) {
            log.println("2a. one hot customer, 1 instance" + at);
            runs.addAll(scenarios.hotCustomerOneInstance(chosen(settings, Kind.QUOTA, Kind.QUOTA_NO_LOCAL, baselines)));
        }
        if (settings.scenarios().contains("hot")) {
            log.println("2. one hot customer, 2 instances" + at);
            runs.addAll(scenarios.hotCustomer(chosen(settings, Kind.QUOTA, Kind.QUOTA_NO_LOCAL, baselines)));
        }
        if (settings.scenarios().contains("hot8")) {
            log.println("2b. one hot customer, " + settings.instances() + " instances" + at);
            runs.addAll(scenarios.hotCustomerManyInstances(chosen(settings, Kind.QUOTA, Kind.QUOTA_NO_LOCAL, baselines)));
        }
        if (settings.scenarios().contains("shared8")) {
            log.println("5c. transfer decision, " + settings.instances() + " instances on the shared rule" + at);
            runs.addAll(new TransferScenario(settings, redis, network, comparison, log)
                    .sharedRule(chosen(settings, List.of(Kind.QUOTA_TRANSFER, Kind.LUA_TRANSFER))));
        }
        if (settings.scenarios().contains("flood")) {
            log.println("3. abusive flood" + at);
            runs.addAll(scenarios.flood(chosen(settings, Kind.QUOTA, Kind.QUOTA_NO_LOCAL, baselines)));
        }
        if (settings.scenarios().contains("http")) {
            log.println("4. HTTP end to end" + at);
            http.addAll(new HttpScenario(settings, redis, network, log, profiler).run());
        }
        if (settings.scenarios().contains("transfer")) {
            TransferScenario transfer = new TransferScenario(settings, redis, network, comparison, log);
            List<Kind> kinds = chosen(settings, List.of(Kind.QUOTA_TRANSFER, Kind.QUOTA, Kind.LUA_TRANSFER, Kind.LUA));
            Set<String> parts = settings.transferParts();
            if (parts.contains("peak")) {
                log.println("5. transfer decision, many customers" + at);
                List<RunResult> peak = transfer.throughput(kinds);
                runs.addAll(peak);
                double slowest = peak.stream().mapToDouble(RunResult::throughput).min().orElse(0);
                if (slowest > 0 && parts.contains("paced")) {
                    log.println("5b. transfer decision, paced at half the slowest peak" + at);
                    runs.addAll(transfer.paced(kinds, slowest / 2));
                }
            }
            if (parts.contains("exactness")) {
                log.println("5. transfer decision, exactness with one bucket tight at a time" + at);
                checks.addAll(transfer.exactness(chosen(settings, List.of(Kind.QUOTA_TRANSFER, Kind.LUA_TRANSFER))));
            }
        }
        if (settings.scenarios().contains("alloc")) {
            log.println("6. allocation per decision, one caller" + at);
            allocation.addAll(AllocationScenario.run(chosen(settings,
                    List.of(Kind.QUOTA, Kind.LUA, Kind.QUOTA_TRANSFER, Kind.LUA_TRANSFER)), settings, redis, network, log));
        }
    }

    /** Those of {@code kinds} asked for, in order. */
    private static List<Kind> chosen(Settings settings, List<Kind> kinds) {
        return kinds.stream().filter(settings.limiters()::contains).toList();
    }

    /** This module, the variant that shows one tuning's before, and the baselines: those asked for. */
    private static List<Kind> chosen(Settings settings, Kind ours, Kind before, List<Kind> baselines) {
        List<Kind> kinds = new ArrayList<>(List.of(ours, before));
        kinds.addAll(baselines);
        return kinds.stream().filter(settings.limiters()::contains).toList();
    }

    private static void write(Path file, String text) {
        try {
            if (file.getParent() != null) {
                Files.createDirectories(file.getParent());
            }
            Files.writeString(file, text);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }
}
