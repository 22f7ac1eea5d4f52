package dev.quota.bench;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.function.Predicate;

/** The results as markdown: the machine, one table per scenario, and each target met or missed. */
final class Report {

    private final StringBuilder out = new StringBuilder();

    private Report() {
    }

    static String render(Settings settings, String redisVersion, String sizing, List<RunResult> runs,
                         List<HttpScenario.Row> http) {
        Report r = new Report();
        r.machine(settings, redisVersion, sizing);
        r.many(runs);
        r.hot(runs);
        r.flood(runs);
        r.http(http);
        r.targets(runs, http);
        return r.out.toString();
    }

    private void machine(Settings settings, String redisVersion, String sizing) {
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
        line("");
    }

    private void many(List<RunResult> runs) {
        List<RunResult> rows = of(runs, "1.");
        if (rows.isEmpty()) {
            return;
        }
        line("## " + rows.get(0).scenario());
        line("");
        line("| limiter | decisions/s | vs Lua | p50 µs | p99 µs | round trips/decision | Redis cmds/decision "
                + "| client CPU µs/decision | Redis CPU µs/decision | admitted / allowed | customers over limit | errors |");
        line("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        double lua = luaThroughput(rows);
        for (RunResult r : rows) {
            line(f("| %s | %.0f | %.2fx | %.0f | %.0f | %.2f | %.2f | %.1f | %.1f | %d / %d | %d | %d |", r.limiter(),
                    r.throughput(), r.throughput() / lua, r.p50() / 1e3, r.p99() / 1e3, r.roundTripsPerDecision(),
                    r.serverCommandsPerDecision(), r.clientCpuMicros(), r.redisCpuMicros(), r.exactness().admitted(),
                    r.exactness().allowed(), r.exactness().customersOver(), r.errors()));
        }
        line("");
    }

    private void hot(List<RunResult> runs) {
        List<RunResult> rows = of(runs, "2.");
        if (rows.isEmpty()) {
            return;
        }
        line("## " + rows.get(0).scenario());
        line("");
        line("| limiter | decisions/s | vs Lua | p50 µs | p99 µs | scripts (CAS attempts)/decision "
                + "| round trips/decision | Redis cmds/decision | client CPU µs/decision | admitted / allowed | errors |");
        line("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        double lua = luaThroughput(rows);
        for (RunResult r : rows) {
            line(f("| %s | %.0f | %.2fx | %.0f | %.0f | %.3f | %.3f | %.3f | %.1f | %d / %d%s | %d |", r.limiter(),
                    r.throughput(), r.throughput() / lua, r.p50() / 1e3, r.p99() / 1e3, r.scriptsPerDecision(),
                    r.roundTripsPerDecision(), r.serverCommandsPerDecision(), r.clientCpuMicros(),
                    r.exactness().admitted(),
                    r.exactness().allowed(), r.exactness().exact() ? "" : " **over**", r.errors()));
        }
        line("");
    }

    private void flood(List<RunResult> runs) {
        List<RunResult> rows = of(runs, "3.");
        if (rows.isEmpty()) {
            return;
        }
        line("## " + rows.get(0).scenario());
        line("");
        line("| limiter | others p50 µs | others p99 µs | abuser p99 µs | round trips/decision "
                + "| extra round trips per rejected | abuser admitted / allowed | others admitted / requests | errors |");
        line("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
        for (RunResult r : rows) {
            RunResult.Watched w = r.watched();
            long othersRequests = r.decisions() - w.decisions();
            long othersAdmitted = r.admitted() - w.admitted();
            line(f("| %s | %.0f | %.0f | %.0f | %.2f | %.3f | %d / %d%s | %d / %d | %d |", r.limiter(), r.p50() / 1e3,
                    r.p99() / 1e3, w.p99() / 1e3, r.roundTripsPerDecision(), r.extraRoundTripsPerRejected(),
                    w.admitted(), w.allowed(), w.admitted() > w.allowed() ? " **over**" : "",
                    othersAdmitted, othersRequests, r.errors()));
        }
        line("");
    }

    private void http(List<HttpScenario.Row> rows) {
        if (rows.isEmpty()) {
            return;
        }
        line("## 4. HTTP end to end (GET /api/v1/accounts/{id}, Jersey + Grizzly, load from a separate process)");
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

    private void targets(List<RunResult> runs, List<HttpScenario.Row> http) {
        line("## Targets");
        line("");
        List<RunResult> many = of(runs, "1.");
        RunResult manyQuota = find(many, Kind.QUOTA);
        if (manyQuota != null && find(many, Kind.LUA) != null) {
            double ratio = manyQuota.throughput() / luaThroughput(many);
            target(ratio >= 0.7, f("many customers: decisions/s %.2fx Lua (target >= 0.70x)", ratio));
        }
        List<RunResult> hot = of(runs, "2.");
        RunResult hotQuota = find(hot, Kind.QUOTA);
        if (hotQuota != null) {
            target(hotQuota.scriptsPerDecision() <= 1.1,
                    f("hot customer: CAS attempts per decision %.3f (target <= 1.1)", hotQuota.scriptsPerDecision()));
            if (find(hot, Kind.LUA) != null) {
                double ratio = hotQuota.throughput() / luaThroughput(hot);
                target(ratio >= 1.0, f("hot customer: decisions/s %.2fx Lua on the same key (target >= 1.0x)", ratio));
            }
        }
        RunResult floodQuota = find(of(runs, "3."), Kind.QUOTA);
        if (floodQuota != null) {
            double extra = floodQuota.extraRoundTripsPerRejected();
            target(extra <= 0.05, f("flood: %.3f Redis commands per rejected request beyond what admitted ones need"
                    + " (target <= 0.05)", extra));
        }
        HttpScenario.Row plainPeak = http(http, HttpScenario.WITHOUT, "peak");
        HttpScenario.Row quotaPeak = http(http, HttpScenario.WITH, "peak");
        HttpScenario.Row luaPeak = http(http, HttpScenario.LUA, "peak");
        if (plainPeak != null && quotaPeak != null) {
            double ratio = quotaPeak.result().throughput() / plainPeak.result().throughput();
            target(ratio >= 0.85, f("HTTP: with the filter %.2fx the throughput without (target >= 0.85x)%s", ratio,
                    luaPeak == null ? "" : f("; the Lua floor filter: %.2fx",
                            luaPeak.result().throughput() / plainPeak.result().throughput())));
        }
        HttpScenario.Row plainHalf = http(http, HttpScenario.WITHOUT, "half peak");
        HttpScenario.Row quotaHalf = http(http, HttpScenario.WITH, "half peak");
        HttpScenario.Row luaHalf = http(http, HttpScenario.LUA, "half peak");
        if (plainHalf != null && quotaHalf != null) {
            double added = (quotaHalf.result().p99() - plainHalf.result().p99()) / 1e6;
            double addedP50 = (quotaHalf.result().p50() - plainHalf.result().p50()) / 1e6;
            target(added <= 1.0, f("HTTP: the filter adds %.2f ms to p99 at half the peak load (target <= 1 ms);"
                    + " p50 +%.2f ms%s", added, addedP50, luaHalf == null ? "" : f("; the Lua floor filter: p99 %+.2f ms",
                    (luaHalf.result().p99() - plainHalf.result().p99()) / 1e6)));
        }
        long over = runs.stream().filter(r -> !r.exactness().exact()).count();
        target(over == 0, "exactness: " + (over == 0 ? "no limiter admitted any customer beyond its limit in any run"
                : over + " run(s) admitted a customer beyond its limit"));
        line("");
    }

    private void target(boolean met, String text) {
        line("- " + (met ? "met: " : "**missed**: ") + text);
    }

    private static List<RunResult> of(List<RunResult> runs, String prefix) {
        Predicate<RunResult> p = r -> r.scenario().startsWith(prefix);
        return runs.stream().filter(p).toList();
    }

    private static RunResult find(List<RunResult> rows, Kind kind) {
        return rows.stream().filter(r -> r.limiter().equals(kind.label())).findFirst().orElse(null);
    }

    private static HttpScenario.Row http(List<HttpScenario.Row> rows, String server, String load) {
        return rows.stream().filter(r -> r.server().equals(server) && r.load().equals(load)).findFirst().orElse(null);
    }

    private static double luaThroughput(List<RunResult> rows) {
        RunResult lua = find(rows, Kind.LUA);
        return lua == null ? Double.NaN : lua.throughput();
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
