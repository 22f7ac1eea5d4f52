package dev.quota.bench;

import dev.quota.core.TokenLeasing;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/** The targets, each met or missed, for the results of one network round trip. */
final class Targets {

    private final List<String> lines = new ArrayList<>();

    private Targets() {
    }

    /** One markdown bullet per target that the results can answer. */
    static List<String> of(List<RunResult> runs, List<HttpScenario.Row> http, List<TransferScenario.Check> checks) {
        Targets t = new Targets();
        t.oneLimit(runs);
        t.http(http);
        t.transfer(runs, checks);
        t.memory(runs);
        long over = runs.stream().filter(r -> !r.exactness().exact()).count()
                + checks.stream().filter(c -> !c.exactness().exact()).count();
        t.target(over == 0, "exactness: " + (over == 0 ? "no limiter admitted beyond any limit in any run"
                : over + " run(s) admitted beyond a limit"));
        return t.lines;
    }

    private void oneLimit(List<RunResult> runs) {
        List<RunResult> many = scenario(runs, "1.");
        RunResult manyQuota = find(many, Kind.QUOTA);
        if (manyQuota != null && find(many, Kind.LUA) != null) {
            double ratio = manyQuota.throughput() / throughput(many, Kind.LUA);
            target(ratio >= 0.7, f("many customers: decisions/s %.2fx Lua (target >= 0.70x)", ratio));
        }
        List<RunResult> hot = scenario(runs, "2.");
        RunResult hotQuota = find(hot, Kind.QUOTA);
        if (hotQuota != null) {
            target(hotQuota.scriptsPerDecision() <= 1.1,
                    f("hot customer: CAS attempts per decision %.3f (target <= 1.1)", hotQuota.scriptsPerDecision()));
            if (find(hot, Kind.LUA) != null) {
                double ratio = hotQuota.throughput() / throughput(hot, Kind.LUA);
                target(ratio >= 1.0, f("hot customer: decisions/s %.2fx Lua on the same key (target >= 1.0x)", ratio));
            }
        }
        List<RunResult> hot1 = scenario(runs, "2a.");
        RunResult hot1Quota = find(hot1, Kind.QUOTA);
        if (hot1Quota != null && find(hot1, Kind.LUA) != null) {
            double ratio = hot1Quota.throughput() / throughput(hot1, Kind.LUA);
            target(ratio >= 1.5 && hot1Quota.errors() == 0, f("hot customer, 1 instance: decisions/s %.2fx Lua on the"
                    + " same key (target >= 1.5x), %d failed decisions (target 0)", ratio, hot1Quota.errors()));
        }
        List<RunResult> hot8 = scenario(runs, "2b.");
        RunResult hot8Quota = find(hot8, Kind.QUOTA);
        RunResult hot8Floor = find(hot8, Kind.LUA);
        if (hot8Quota != null && hot8Floor != null) {
            fleetKey(hot8Quota, hot8Floor, "hot customer", "decisions/s", "Lua on the same key");
            underAdmission(hot8Quota, hot8Floor);
        }
        List<RunResult> shared = scenario(runs, "5c.");
        RunResult sharedQuota = find(shared, Kind.QUOTA_TRANSFER);
        RunResult sharedFloor = find(shared, Kind.LUA_TRANSFER);
        if (sharedQuota != null && sharedFloor != null) {
            fleetKey(sharedQuota, sharedFloor, "shared rule", "transfer decisions/s", "the layered Lua floor");
        }
        RunResult floodQuota = find(scenario(runs, "3."), Kind.QUOTA);
        if (floodQuota != null) {
            double extra = floodQuota.extraRoundTripsPerRejected();
            target(extra <= 0.05, f("flood: %.3f Redis commands per rejected request beyond what admitted ones need"
                    + " (target <= 0.05)", extra));
        }
    }

    private void http(List<HttpScenario.Row> http) {
        HttpScenario.Row plainPeak = row(http, HttpScenario.WITHOUT, "peak");
        HttpScenario.Row quotaPeak = row(http, HttpScenario.WITH, "peak");
        HttpScenario.Row luaPeak = row(http, HttpScenario.LUA, "peak");
        if (plainPeak != null && quotaPeak != null) {
            double ratio = quotaPeak.result().throughput() / plainPeak.result().throughput();
            target(ratio >= 0.85, f("HTTP: with the filter %.2fx the throughput without (target >= 0.85x)%s", ratio,
                    luaPeak == null ? "" : f("; the Lua floor filter: %.2fx",
                            luaPeak.result().throughput() / plainPeak.result().throughput())));
        }
        HttpScenario.Row layeredPeak = row(http, HttpScenario.WITH + HttpScenario.LAYERED, "peak");
        HttpScenario.Row layeredLuaPeak = row(http, HttpScenario.LAYERED_LUA + HttpScenario.LAYERED, "peak");
        if (quotaPeak != null && luaPeak != null) {
            double ratio = quotaPeak.result().throughput() / luaPeak.result().throughput();
            target(ratio >= 0.9, f("HTTP: QuotaFeature %.2fx the bare Lua filter's throughput (target >= 0.90x);"
                    + " server CPU %+.0f µs per request over it (target <= +30 µs)", ratio,
                    quotaPeak.serverCpuMicros() - luaPeak.serverCpuMicros()));
        }
        if (layeredPeak != null && layeredLuaPeak != null) {
            double ratio = layeredPeak.result().throughput() / layeredLuaPeak.result().throughput();
            target(ratio >= 0.9, f("HTTP, layered route: QuotaFeature %.2fx the layered Lua filter's throughput"
                    + " (target >= 0.90x); server CPU %+.0f µs per request over it", ratio,
                    layeredPeak.serverCpuMicros() - layeredLuaPeak.serverCpuMicros()));
        }
        HttpScenario.Row plainHalf = row(http, HttpScenario.WITHOUT, "half peak");
        HttpScenario.Row quotaHalf = row(http, HttpScenario.WITH, "half peak");
        HttpScenario.Row luaHalf = row(http, HttpScenario.LUA, "half peak");
        if (plainHalf != null && quotaHalf != null) {
            double added = (quotaHalf.result().p99() - plainHalf.result().p99()) / 1e6;
            double addedP50 = (quotaHalf.result().p50() - plainHalf.result().p50()) / 1e6;
            target(added <= 1.0, f("HTTP: the filter adds %.2f ms to p99 at half the slowest server's peak (target <= 1 ms);"
                    + " p50 %+.2f ms%s", added, addedP50, luaHalf == null ? "" : f("; the Lua floor filter: p99 %+.2f ms",
                    (luaHalf.result().p99() - plainHalf.result().p99()) / 1e6)));
        }
    }

    /**
     * The targets of the one-round-trip work: p50 near the one-limit decision's (paced, where the
     * p50 is the decision's own time; closed loop when no paced run was made), throughput near the
     * floor's.
     */
    private void transfer(List<RunResult> runs, List<TransferScenario.Check> checks) {
        List<RunResult> rows = scenario(runs, "5.");
        List<RunResult> paced = scenario(runs, "5b.");
        List<RunResult> latency = paced.isEmpty() ? rows : paced;
        RunResult layered = find(latency, Kind.QUOTA_TRANSFER);
        RunResult single = find(latency, Kind.QUOTA);
        if (layered != null && single != null) {
            double ratio = (double) layered.p50() / single.p50();
            RunResult floor = find(latency, Kind.LUA_TRANSFER);
            RunResult floorSingle = find(latency, Kind.LUA);
            target(ratio <= 1.3, f("transfer decision: p50 %.0f µs, %.2fx the one-limit decision's %.0f µs, %s"
                    + " (target <= 1.3x)%s", layered.p50() / 1e3, ratio, single.p50() / 1e3,
                    paced.isEmpty() ? "closed loop" : "paced", floor == null || floorSingle == null ? ""
                            : f("; the layered Lua floor: %.2fx its one-limit p50", (double) floor.p50() / floorSingle.p50())));
        }
        // throughput at the closed-loop peak of 5, never the paced 5b (where every limiter runs at the same rate)
        RunResult peak = find(rows, Kind.QUOTA_TRANSFER);
        if (peak != null && find(rows, Kind.LUA_TRANSFER) != null) {
            double ratio = peak.throughput() / throughput(rows, Kind.LUA_TRANSFER);
            target(ratio >= 0.8, f("transfer decision: decisions/s %.2fx the layered Lua floor at the peak (target >= 0.80x);"
                    + " %.2f round trips per decision", ratio, peak.roundTripsPerDecision()));
        }
        if (!checks.isEmpty()) {
            long over = checks.stream().filter(c -> !c.exactness().exact()).count();
            target(over == 0, f("transfer decision: %s of %d tight-bucket checks admitted beyond the limit",
                    over == 0 ? "none" : Long.toString(over), checks.size()));
        }
    }

    /**
     * The tail and the heap: paced p99 of this module within 2x the Lua floor's for the same
     * buckets (5b); at most 150 bytes kept per remembered key (1 and 5, where every customer was
     * primed).
     */
    private void memory(List<RunResult> runs) {
        List<RunResult> paced = scenario(runs, "5b.");
        for (Kind[] pair : new Kind[][] {{Kind.QUOTA_TRANSFER, Kind.LUA_TRANSFER}, {Kind.QUOTA, Kind.LUA}}) {
            RunResult ours = find(paced, pair[0]);
            RunResult floor = find(paced, pair[1]);
            if (ours != null && floor != null) {
                double ratio = (double) ours.p99() / floor.p99();
                target(ratio <= 2.0, f("paced p99: %s %.0f µs, %.2fx the %s's %.0f µs (target <= 2x); GC pauses"
                                + " (count, longest ms, share of the time) %s against %s", ours.limiter(),
                        ours.p99() / 1e3, ratio, floor.limiter(), floor.p99() / 1e3, TransferTables.pauses(ours),
                        TransferTables.pauses(floor)));
            }
        }
        for (String prefix : List.of("1.", "5.")) {
            List<RunResult> rows = scenario(runs, prefix);
            RunResult single = find(rows, Kind.QUOTA);
            RunResult transfer = find(rows, Kind.QUOTA_TRANSFER);
            for (RunResult r : new RunResult[] {single, transfer}) {
                if (r != null && r.retained() != null) {
                    double perKey = r.retained().perKey();
                    target(perKey <= 150, f("memory, %s%s: %.0f bytes kept per remembered key, %.0f per customer"
                            + " (target <= 150 per key)", prefix, r == transfer ? " transfer decision" : " one limit",
                            perKey, r.retained().perCustomer()));
                }
            }
        }
    }

    /**
     * One bullet per transfer and one-limit pair of scenario 6: what this module's decision
     * allocates beyond the Lua floor's one script (target <= 1 KB for one limit).
     */
    static List<String> allocation(List<AllocationScenario.Row> rows) {
        Targets t = new Targets();
        String[][] pairs = {{Kind.QUOTA.label(), Kind.LUA.label()}, {Kind.QUOTA_TRANSFER.label(), Kind.LUA_TRANSFER.label()}};
        for (String[] pair : pairs) {
            AllocationScenario.Row ours = rows.stream().filter(r -> r.limiter().equals(pair[0])).findFirst().orElse(null);
            AllocationScenario.Row floor = rows.stream().filter(r -> r.limiter().equals(pair[1])).findFirst().orElse(null);
            if (ours != null && floor != null) {
                double added = ours.callerBytes() + ours.otherBytes() - floor.callerBytes() - floor.otherBytes();
                String text = f("allocation, one caller: %s allocates %.0f bytes per decision, %.0f more than %s",
                        ours.limiter(), ours.callerBytes() + ours.otherBytes(), added, floor.limiter());
                if (pair[0].equals(Kind.QUOTA.label())) {
                    t.target(added <= 1024, text + " (target <= 1 KB more)");
                } else {
                    t.lines.add("- " + text);
                }
            }
        }
        return t.lines;
    }

    /**
     * One bullet per request kind of scenario 7: what the hop costs it beyond the same request
     * direct, in the hop's round trips (target <= 1.2), with the Redis commands it wrote behind it.
     */
    static List<String> hop(HopScenario.Result hop) {
        Targets t = new Targets();
        for (HopScenario.Row row : hop.rows()) {
            double trips = row.roundTrips();
            t.target(trips <= HopScenario.TARGET_ROUND_TRIPS && row.errors() == 0, f("behind a hop of %.2f ms: %s"
                            + " costs %+.2f ms, %.2f round trips more than direct (target <= %.1f), medians of %d rounds"
                            + " of %d; %.2f Redis commands per request; %d errors", hop.addedRttNanos() / 1e6,
                    row.request(), row.difference() / 1e6, trips, HopScenario.TARGET_ROUND_TRIPS, row.rounds().size(),
                    HopScenario.PER_ROUND, row.commandsPerRequest(), row.errors()));
        }
        return t.lines;
    }

    private void target(boolean met, String text) {
        lines.add("- " + (met ? "met: " : "**missed**: ") + text);
    }

    /** The rows of the scenario whose title starts with {@code prefix}. */
    static List<RunResult> scenario(List<RunResult> runs, String prefix) {
        Predicate<RunResult> p = r -> r.scenario().startsWith(prefix);
        return runs.stream().filter(p).toList();
    }

    static @Nullable RunResult find(List<RunResult> rows, Kind kind) {
        return rows.stream().filter(r -> r.limiter().equals(kind.label())).findFirst().orElse(null);
    }

    /** {@code kind}'s decisions per second in {@code rows}, NaN when it did not run. */
    static double throughput(List<RunResult> rows, Kind kind) {
        RunResult r = find(rows, kind);
        return r == null ? Double.NaN : r.throughput();
    }

    static HttpScenario.@Nullable Row row(List<HttpScenario.Row> rows, String server, String load) {
        return rows.stream().filter(r -> r.server().equals(server) && r.load().equals(load)).findFirst().orElse(null);
    }

    /** The instances a multi-instance scenario ran over, from its title ("... over 8 instances)"). */
    /**
     * A key every instance of a fleet writes: at least twice the floor's decisions a second, a p99
     * no longer than the floor's, and no failed decision.
     */
    private void fleetKey(RunResult ours, RunResult floor, String what, String unit, String floorName) {
        double ratio = ours.throughput() / floor.throughput();
        target(ratio >= 2.0 && ours.p99() <= floor.p99() && ours.errors() == 0, f("%s, %d instances: %s %.2fx %s"
                + " (target >= 2.0x), p99 %d µs against its %d µs (target <=), %.3f CAS attempts and %.3f conflicts"
                + " per decision, %d failed decisions (target 0)", what, instances(ours), unit, ratio, floorName,
                ours.p99() / 1_000, floor.p99() / 1_000, ours.scriptsPerDecision(), ours.conflictsPerDecision(),
                ours.errors()));
    }

    /**
     * What leased batches left unserved on a hot key: the module's shortfall against what its limit
     * allowed, beyond the floor's own (requests in flight when a slice ends), within the bound
     * operations.md publishes per slice ({@link TokenLeasing#heldAtMost}).
     */
    private void underAdmission(RunResult ours, RunResult floor) {
        long shortfall = ours.exactness().allowed() - ours.exactness().admitted();
        long floorShortfall = floor.exactness().allowed() - floor.exactness().admitted();
        long bound = Comparison.ROUNDS * TokenLeasing.DEFAULT.heldAtMost(Scenarios.HOT_LIMIT.capacity(),
                instances(ours), 1);
        target(shortfall - floorShortfall <= bound, f("hot customer, %d instances: admitted %d of %d allowed, %d"
                + " short beyond the floor's own %d (target <= %d, the leased bound over %d slices)", instances(ours),
                ours.exactness().admitted(), ours.exactness().allowed(), shortfall - floorShortfall, floorShortfall,
                bound, Comparison.ROUNDS));
    }

    static int instances(RunResult run) {
        Matcher m = INSTANCES.matcher(run.scenario());
        return m.find() ? Integer.parseInt(m.group(1)) : Scenarios.MANY_INSTANCES;
    }

    private static final Pattern INSTANCES = Pattern.compile("over (\\d+) instances");

    private static String f(String format, Object... args) {
        return String.format(Locale.ROOT, format, args);
    }
}
