package dev.quota.bench;

import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import org.jspecify.annotations.Nullable;

/**
 * The results as markdown: the machine, the round trips side by side, then for each network round
 * trip one table per scenario and each target met or missed.
 */
final class Report {

    private final StringBuilder out = new StringBuilder();

    private Report() {
    }

    static String render(Settings settings, String redisVersion, String sizing, List<String> networks,
                         List<RunResult> runs, List<HttpScenario.Row> http, List<TransferScenario.Check> checks,
                         List<AllocationScenario.Row> allocation, HopScenario.@Nullable Result hop,
                         double elapsedSeconds) {
        Report r = new Report();
        r.machine(settings, redisVersion, sizing, networks, elapsedSeconds);
        if (settings.rtts().size() > 1 && !networks.isEmpty()) {
            r.sideBySide(settings.rtts(), runs);
        }
        // no passes when hop ran alone
        for (int i = 0; i < networks.size(); i++) {
            Duration rtt = settings.rtts().get(i);
            List<RunResult> at = runs.stream().filter(x -> x.rtt().equals(rtt)).toList();
            List<HttpScenario.Row> httpAt = http.stream().filter(x -> x.rtt().equals(rtt)).toList();
            List<TransferScenario.Check> checksAt = checks.stream().filter(x -> x.rtt().equals(rtt)).toList();
            r.line("## Redis " + Network.label(rtt) + " round trip");
            r.line("");
            r.line(networks.get(i) + ".");
            r.line("");
            r.many(Targets.scenario(at, "1."), rtt);
            r.hot(Targets.scenario(at, "2a."), rtt);
            r.hot(Targets.scenario(at, "2."), rtt);
            r.hot(Targets.scenario(at, "2b."), rtt);
            r.hot(Targets.scenario(at, "5c."), rtt);
            r.flood(Targets.scenario(at, "3."), rtt);
            r.http(httpAt, rtt);
            TransferTables.append(r.out, Targets.scenario(at, "5."), Targets.scenario(at, "5b."), checksAt, rtt,
                    settings.callers());
            List<AllocationScenario.Row> allocationAt = allocation.stream().filter(x -> x.rtt().equals(rtt)).toList();
            r.memory(at, rtt);
            r.allocation(allocationAt, rtt);
            r.line("### Targets, Redis " + Network.label(rtt));
            r.line("");
            Targets.of(at, httpAt, checksAt).forEach(r::line);
            Targets.allocation(allocationAt).forEach(r::line);
            r.line("");
        }
        if (hop != null) {
            r.hop(hop);
        }
        return r.out.toString();
    }

    private void machine(Settings settings, String redisVersion, String sizing, List<String> networks,
                         double elapsedSeconds) {
        line("## Machine and versions");
        line("");
        line("- cores: " + Runtime.getRuntime().availableProcessors() + ", memory: " + memory()
                + ", " + System.getProperty("os.name") + " " + System.getProperty("os.arch"));
        line("- java: " + System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
        line("- redis-server " + redisVersion + " on 127.0.0.1 (testkit), Redisson " + version("org.redisson", "redisson")
                + ", Bucket4j core " + version("com.bucket4j", "bucket4j_jdk17-core") + ", bucket4j_jdk17-redisson "
                + version("com.bucket4j", "bucket4j_jdk17-redisson") + ", Jersey "
                + version("org.glassfish.jersey.core", "jersey-server"));
        line("- Redis client per instance: " + sizing);
        line(String.format(Locale.ROOT, "- each run: %.0f s warm-up on other keys, %.0f s measured, %d callers%s",
                settings.warmupNanos() / 1e9, settings.measureNanos() / 1e9, settings.callers(),
                settings.quick() ? " (--quick)" : ""));
        for (String network : networks) {
            line("- Redis " + network);
        }
        line("- heap: " + MemoryMeter.describeHeap() + "; JVM options: "
                + String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()));
        line(String.format(Locale.ROOT, "- the whole run took %.0f s (%.1f min)", elapsedSeconds, elapsedSeconds / 60));
        line("- client CPU: the bench JVM's process CPU (every thread: load, Redis client, limiter, GC, JIT) minus"
                + " the delay proxy's threads, per decision");
        line("");
    }

    /** Scenarios 1, 2, 5 and 5b at every round trip, one row per limiter. */
    private void sideBySide(List<Duration> rtts, List<RunResult> runs) {
        line("## The round trips side by side");
        line("");
        StringBuilder head = new StringBuilder("| scenario | limiter |");
        StringBuilder rule = new StringBuilder("|---|---|");
        for (String what : List.of("decisions/s", "p50 µs", "client CPU µs/decision")) {
            for (Duration rtt : rtts) {
                head.append(' ').append(what).append(' ').append(Network.label(rtt)).append(" |");
                rule.append("---:|");
            }
        }
        line(head.toString());
        line(rule.toString());
        for (String prefix : List.of("1.", "2.", "5.", "5b.")) {
            List<RunResult> first = Targets.scenario(runs, prefix).stream().filter(r -> r.rtt().equals(rtts.get(0)))
                    .toList();
            for (RunResult r : first) {
                StringBuilder row = new StringBuilder("| " + prefix.substring(0, prefix.length() - 1) + " | "
                        + r.limiter() + " |");
                for (int what = 0; what < 3; what++) {
                    for (Duration rtt : rtts) {
                        RunResult x = Targets.scenario(runs, prefix).stream()
                                .filter(o -> o.rtt().equals(rtt) && o.limiter().equals(r.limiter())).findFirst()
                                .orElse(null);
                        row.append(' ').append(x == null ? "" : what == 0 ? f("%.0f", x.throughput())
                                : what == 1 ? f("%.0f", x.p50() / 1e3) : f("%.1f", x.clientCpuMicros())).append(" |");
                    }
                }
                line(row.toString());
            }
        }
        line("");
    }

    private void many(List<RunResult> rows, Duration rtt) {
        if (rows.isEmpty()) {
            return;
        }
        heading(rows.get(0).scenario(), rtt);
        line("");
        line("| limiter | decisions/s | vs Lua | p50 µs | p99 µs | round trips/decision | Redis cmds/decision "
                + "| client CPU µs/decision | Redis CPU µs/decision | proxy CPU µs/decision | admitted / allowed "
                + "| customers over limit | errors |");
        line("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        double lua = Targets.throughput(rows, Kind.LUA);
        for (RunResult r : rows) {
            line(f("| %s | %.0f | %.2fx | %.0f | %.0f | %.2f | %.2f | %.1f | %.1f | %.1f | %d / %d | %d | %d |",
                    r.limiter(), r.throughput(), r.throughput() / lua, r.p50() / 1e3, r.p99() / 1e3,
                    r.roundTripsPerDecision(), r.serverCommandsPerDecision(), r.clientCpuMicros(), r.redisCpuMicros(),
                    r.proxyCpuMicros(), r.exactness().admitted(), r.exactness().allowed(),
                    r.exactness().customersOver(), r.errors()));
        }
        line("");
    }

    private void hot(List<RunResult> rows, Duration rtt) {
        if (rows.isEmpty()) {
            return;
        }
        heading(rows.get(0).scenario(), rtt);
        line("");
        line("| limiter | decisions/s | vs Lua | p50 µs | p99 µs | scripts (CAS attempts)/decision "
                + "| conflicts/decision | round trips/decision | Redis cmds/decision | client CPU µs/decision "
                + "| admitted / allowed | errors |");
        line("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        double lua = Targets.throughput(rows, Kind.LUA);
        if (Double.isNaN(lua)) { // the transfer's rows: against the layered floor
            lua = Targets.throughput(rows, Kind.LUA_TRANSFER);
        }
        for (RunResult r : rows) {
            line(f("| %s | %.0f | %.2fx | %.0f | %.0f | %.3f | %.3f | %.3f | %.3f | %.1f | %d / %d%s | %d |",
                    r.limiter(), r.throughput(), r.throughput() / lua, r.p50() / 1e3, r.p99() / 1e3,
                    r.scriptsPerDecision(), r.conflictsPerDecision(), r.roundTripsPerDecision(), r.serverCommandsPerDecision(), r.clientCpuMicros(),
                    r.exactness().admitted(),
                    r.exactness().allowed(), r.exactness().exact() ? "" : " **over**", r.errors()));
        }
        line("");
    }

    private void flood(List<RunResult> rows, Duration rtt) {
        if (rows.isEmpty()) {
            return;
        }
        heading(rows.get(0).scenario(), rtt);
        line("");
        line("| limiter | others p50 µs | others p99 µs | abuser p99 µs | round trips/decision "
                + "| extra round trips per rejected | client CPU µs/decision | abuser admitted / allowed "
                + "| others admitted / requests | errors |");
        line("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        for (RunResult r : rows) {
            RunResult.Watched w = java.util.Objects.requireNonNull(r.watched(), "the flood watches its abuser");
            long othersRequests = r.decisions() - w.decisions();
            long othersAdmitted = r.admitted() - w.admitted();
            line(f("| %s | %.0f | %.0f | %.0f | %.2f | %.3f | %.1f | %d / %d%s | %d / %d | %d |", r.limiter(),
                    r.p50() / 1e3, r.p99() / 1e3, w.p99() / 1e3, r.roundTripsPerDecision(),
                    r.extraRoundTripsPerRejected(), r.clientCpuMicros(), w.admitted(), w.allowed(),
                    w.admitted() > w.allowed() ? " **over**" : "", othersAdmitted, othersRequests, r.errors()));
        }
        line("");
    }

    private void http(List<HttpScenario.Row> rows, Duration rtt) {
        if (rows.isEmpty()) {
            return;
        }
        heading("4. HTTP end to end (GET /api/v1/accounts/{id}, one limit; rows \"..., transfers\": POST"
                + " /api/v1/transfers/{id}, the transfer's five buckets; Jersey + Grizzly, load from a separate process)",
                rtt);
        line("");
        line("| server | load | requests/s | p50 µs | p99 µs | p99.9 µs | round trips/request | Redis cmds/request "
                + "| server CPU µs/request | Redis CPU µs/request | 200 | 429 | errors |");
        line("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        for (HttpScenario.Row row : rows) {
            var r = row.result();
            line(f("| %s | %s | %.0f | %.0f | %.0f | %.0f | %.2f | %.2f | %.0f | %.0f | %d | %d | %d |", row.server(),
                    row.load(), r.throughput(), r.p50() / 1e3, r.p99() / 1e3, r.p999() / 1e3, row.roundTrips(),
                    row.serverCommands(), row.serverCpuMicros(), row.redisCpuMicros(), r.ok(), r.rejected(),
                    r.errors()));
        }
        line("");
    }

    /**
     * What each limiter keeps and allocates: kept, where every customer was primed (1 and 5);
     * allocated per decision in every in-process scenario.
     */
    private void memory(List<RunResult> rows, Duration rtt) {
        if (rows.isEmpty()) {
            return;
        }
        line("### Memory, Redis " + Network.label(rtt));
        line("");
        line("Kept: heap in use after a full collection once every customer was touched, less in use after one"
                + " right before (`MemoryMXBean`), per bucket key the decisions touch and per customer. Allocated: by"
                + " every thread of the bench JVM but the delay proxy's, load threads included"
                + " (`ThreadMXBean#getThreadAllocatedBytes`), per decision; the Redis client's I/O threads allocate"
                + " per command, so a limiter that batches decisions into fewer commands allocates less there.");
        line("");
        line("| scenario | limiter | kept bytes/key | kept bytes/customer | allocated bytes/decision "
                + "| of which on the calling threads | p99 µs |");
        line("|---|---|---:|---:|---:|---:|---:|");
        for (RunResult r : rows) {
            RunResult.Retained kept = r.retained();
            line(f("| %s | %s | %s | %s | %.0f | %.0f | %.0f |", r.scenario().substring(0, r.scenario().indexOf(' ')),
                    r.limiter(), kept == null ? "" : f("%.0f", kept.perKey()),
                    kept == null ? "" : f("%.0f", kept.perCustomer()), r.allocatedPerDecision(),
                    r.callerAllocatedPerDecision(), r.p99() / 1e3));
        }
        line("");
    }

    private void allocation(List<AllocationScenario.Row> rows, Duration rtt) {
        if (rows.isEmpty()) {
            return;
        }
        line(f("### 6. allocation per decision, one caller (%,d customers in turn, each key existing), Redis %s",
                AllocationScenario.CUSTOMERS, Network.label(rtt)));
        line("");
        line("| limiter | calling thread bytes/decision | other threads bytes/decision | errors |");
        line("|---|---:|---:|---:|");
        for (AllocationScenario.Row row : rows) {
            line(f("| %s | %.0f | %.0f | %d |", row.limiter(), row.callerBytes(), row.otherBytes(), row.errors()));
        }
        line("");
    }

    private void hop(HopScenario.Result hop) {
        line("## 7. One request at a time behind a hop of " + Network.label(hop.configured()));
        line("");
        line(hop.network() + ".");
        line("");
        line(f("Two pairs of scenario 4's servers (Jersey + Grizzly, QuotaFeature over RedisStore), one whose Redis"
                + " clients connect directly, one whose clients go through the delay proxy; one keep-alive connection"
                + " each, one request at a time, alternating between the sides; %d untimed requests of each kind on"
                + " each server, then %d rounds of %d. A round's cost is its median behind the hop less its median"
                + " direct; the figures are the medians over the rounds. A round trip is the PING through the proxy"
                + " less the PING direct, one of each after every request pair: %.2f ms (%.2f ms through, %.3f ms"
                + " direct). Redis commands: those the hop side's client wrote, per request, lease returns included.",
                HopScenario.WARMUP, hop.rows().isEmpty() ? 0 : hop.rows().get(0).rounds().size(), HopScenario.PER_ROUND,
                hop.addedRttNanos() / 1e6, hop.pingHop() / 1e6, hop.pingDirect() / 1e6));
        line("");
        line("| request | direct ms | behind the hop ms | difference ms | round trips | rounds' round trips"
                + " | Redis commands/request behind the hop | errors |");
        line("|---|---:|---:|---:|---:|---:|---|---:|");
        for (HopScenario.Row row : hop.rows()) {
            StringBuilder commands = new StringBuilder(f("%.2f", row.commandsPerRequest()));
            row.commands().forEach((name, perRequest) -> commands.append(f(", %s %.2f", name, perRequest)));
            line(f("| %s | %.2f | %.2f | %+.2f | %.2f | %.2f to %.2f | %s | %d |", row.request(), row.direct() / 1e6,
                    row.hop() / 1e6, row.difference() / 1e6, row.roundTrips(), row.fewestRoundTrips(),
                    row.mostRoundTrips(), commands, row.errors()));
        }
        line("");
        line("### Targets, behind the hop");
        line("");
        Targets.hop(hop).forEach(this::line);
        line("");
    }

    private void heading(String scenario, Duration rtt) {
        line("### " + scenario + ", Redis " + Network.label(rtt));
    }

    private static String memory() {
        try {
            for (String l : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (l.startsWith("MemTotal:")) {
                    long kb = Long.parseLong(l.replaceAll("[^0-9]", ""));
                    return f("%.1f GiB", kb / 1024.0 / 1024.0);
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: fall through
        }
        return "unknown";
    }

    static String version(String group, String artifact) {
        String resource = "/META-INF/maven/" + group + "/" + artifact + "/pom.properties";
        try (InputStream in = Report.class.getResourceAsStream(resource)) {
            if (in == null) {
                return "?";
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version", "?");
        } catch (IOException e) {
            return "?";
        }
    }

    private static String f(String format, Object... args) {
        return String.format(Locale.ROOT, format, args);
    }

    private void line(String s) {
        out.append(s).append('\n');
    }
}
