package dev.quota.bench;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * Scenario 5's tables in the report: the transfer decisions at the peak and paced, and the
 * exactness check.
 */
final class TransferTables {

    private final StringBuilder out;
    private final Duration rtt;

    private TransferTables(StringBuilder out, Duration rtt) {
        this.out = out;
        this.rtt = rtt;
    }

    /** Appends the tables of one round trip's results to {@code out}; nothing for what did not run. */
    static void append(StringBuilder out, List<RunResult> peak, List<RunResult> paced,
                       List<TransferScenario.Check> checks, Duration rtt, int callers) {
        TransferTables t = new TransferTables(out, rtt);
        t.transfer(peak);
        t.transfer(paced);
        t.checks(checks, callers);
    }

    /**
     * Scenario 5: the transfer decisions next to the one-limit decisions of the same slices. Each
     * is compared with the Lua floor over the same buckets, and a transfer's p50 with the one-limit
     * decision's of the same limiter.
     */
    private void transfer(List<RunResult> rows) {
        if (rows.isEmpty()) {
            return;
        }
        heading(rows.get(0).scenario());
        line("");
        line("| limiter | buckets | decisions/s | vs the Lua floor, same buckets | p50 µs | p50 vs one limit | p99 µs "
                + "| GC pauses, longest ms, % of the time "
                + "| round trips/decision | Redis cmds/decision | client CPU µs/decision | Redis CPU µs/decision "
                + "| proxy CPU µs/decision | admitted / allowed | over limit | errors |");
        line("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        for (RunResult r : rows) {
            Kind kind = kindOf(r);
            boolean transfer = kind != null && kind.transfer();
            double floor = Targets.throughput(rows, transfer ? Kind.LUA_TRANSFER : Kind.LUA);
            RunResult one = Targets.find(rows, kind == Kind.LUA_TRANSFER ? Kind.LUA : Kind.QUOTA);
            String vsOne = transfer && one != null ? f("%.2fx", (double) r.p50() / one.p50()) : "";
            line(f("| %s | %d | %.0f | %.2fx | %.0f | %s | %.0f | %s | %.2f | %.2f | %.1f | %.1f | %.1f | %d / %d | %d | %d |",
                    r.limiter(), transfer ? 5 : 1, r.throughput(), r.throughput() / floor, r.p50() / 1e3, vsOne,
                    r.p99() / 1e3, pauses(r), r.roundTripsPerDecision(), r.serverCommandsPerDecision(), r.clientCpuMicros(),
                    r.redisCpuMicros(), r.proxyCpuMicros(), r.exactness().admitted(), r.exactness().allowed(),
                    r.exactness().customersOver(), r.errors()));
        }
        line("");
    }

    /** The collector's pauses in a row's slices: how many, the longest, and the share of the time they took. */
    static String pauses(RunResult r) {
        GcPauses.Window gc = r.gc();
        return f("%d, %d, %.1f %%", gc.pauses(), gc.longestMillis(), 100 * gc.pausedShare(r.elapsedNanos()));
    }

    /** Scenario 5's exactness check: one row per tight bucket and limiter. */
    private void checks(List<TransferScenario.Check> checks, int callers) {
        if (checks.isEmpty()) {
            return;
        }
        heading(f("5. transfer decision, exactness: one bucket tight at a time (%d customers, %d callers, %d s each)",
                TransferScenario.CHECK_CUSTOMERS, callers,
                TransferScenario.CHECK_TIME.toSeconds()));
        line("");
        line("| tight bucket | limiter | requests | admitted / allowed | over limit | errors |");
        line("|---|---|---:|---:|---:|---:|");
        for (TransferScenario.Check c : checks) {
            line(f("| %s | %s | %d | %d / %d | %d | %d |", c.bucket(), c.limiter(), c.requests(),
                    c.exactness().admitted(), c.exactness().allowed(), c.exactness().customersOver(), c.errors()));
        }
        line("");
    }

    private void heading(String scenario) {
        line("### " + scenario + ", Redis " + Network.label(rtt));
    }

    /** The kind a row was measured for, by its label. */
    private static @Nullable Kind kindOf(RunResult r) {
        for (Kind kind : Kind.values()) {
            if (kind.label().equals(r.limiter())) {
                return kind;
            }
        }
        return null;
    }

    private static String f(String format, Object... args) {
        return String.format(Locale.ROOT, format, args);
    }

    private void line(String s) {
        out.append(s).append('\n');
    }
}
