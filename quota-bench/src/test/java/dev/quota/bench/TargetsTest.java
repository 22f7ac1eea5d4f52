package dev.quota.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TargetsTest {

    @Test
    void transferThroughput_isJudgedAtThePeak_notInThePacedRunWhereEveryLimiterRunsAtOneRate() {
        List<RunResult> runs = List.of(
                run("5. transfer decision", Kind.QUOTA_TRANSFER, 25_000, 2_300_000),
                run("5. transfer decision", Kind.QUOTA, 69_000, 900_000),
                run("5. transfer decision", Kind.LUA_TRANSFER, 29_000, 2_000_000),
                run("5b. transfer decision, paced", Kind.QUOTA_TRANSFER, 12_500, 400_000),
                run("5b. transfer decision, paced", Kind.QUOTA, 12_500, 250_000),
                run("5b. transfer decision, paced", Kind.LUA_TRANSFER, 12_500, 190_000));

        List<String> lines = Targets.of(runs, List.of(), List.of());

        assertThat(lines).anySatisfy(line -> assertThat(line)
                .startsWith("- met: transfer decision: decisions/s 0.86x the layered Lua floor at the peak"));
        assertThat(lines).anySatisfy(line -> assertThat(line)
                .startsWith("- **missed**: transfer decision: p50 400 µs, 1.60x the one-limit decision's 250 µs, paced"));
    }

    @Test
    void sharedRuleWithManyInstances_isJudgedAgainstTheLayeredFloor_withItsConflictsPerDecision() {
        RunResult quota = run("5c. transfer decision, 8 instances", Kind.QUOTA_TRANSFER, 3_000, 15_000_000);
        RunResult withConflicts = new RunResult(quota.scenario(), quota.rtt(), quota.limiter(), quota.decisions(),
                quota.elapsedNanos(), quota.admitted(), 0, 0, quota.p50(), quota.p99(), quota.exactness(),
                Map.of("evalsha", 30_000L), quota.roundTrips(), null, 1, 1, 0, 0, 0, null, 27_000, GcPauses.Window.NONE);
        List<RunResult> runs = List.of(withConflicts,
                run("5c. transfer decision, 8 instances", Kind.LUA_TRANSFER, 12_000, 4_000_000),
                run("2a. one hot customer", Kind.QUOTA, 30_000, 1_000_000),
                run("2a. one hot customer", Kind.LUA, 20_000, 1_500_000));

        List<String> lines = Targets.of(runs, List.of(), List.of());

        assertThat(lines).contains("- **missed**: shared rule, 8 instances: transfer decisions/s 0.25x the layered Lua"
                + " floor (target >= 2.0x), p99 30000 µs against its 8000 µs (target <=), 1.000 CAS attempts and 0.900"
                + " conflicts per decision, 0 failed decisions (target 0)");
        assertThat(lines).contains("- met: hot customer, 1 instance: decisions/s 1.50x Lua on the same key"
                + " (target >= 1.5x), 0 failed decisions (target 0)");
    }

    @Test
    void hotCustomerOverAFleet_isJudgedAtTwiceTheFloor_andItsShortfallAgainstTheLeasedBound() {
        RunResult quota = run("2b. one hot customer over 8 instances", Kind.QUOTA, 50_000, 1_000_000);
        RunResult shortOf = new RunResult(quota.scenario(), quota.rtt(), quota.limiter(), quota.decisions(),
                quota.elapsedNanos(), 98_900, 0, 0, quota.p50(), quota.p99(), new Tally.Exactness(98_900, 100_000, 0, 0),
                Map.of(), quota.roundTrips(), null, 1, 1, 0, 0, 0, null, 0, GcPauses.Window.NONE);
        RunResult floor = run("2b. one hot customer over 8 instances", Kind.LUA, 20_000, 1_500_000);
        RunResult floorShort = new RunResult(floor.scenario(), floor.rtt(), floor.limiter(), floor.decisions(),
                floor.elapsedNanos(), 99_900, 0, 0, floor.p50(), floor.p99(), new Tally.Exactness(99_900, 100_000, 0, 0),
                Map.of(), floor.roundTrips(), null, 1, 1, 0, 0, 0, null, 0, GcPauses.Window.NONE);

        List<String> lines = Targets.of(List.of(shortOf, floorShort), List.of(), List.of());

        // 8 instances of a 5,000 limit: batches of at most 62, so at most 8 x 62 = 496 held a slice
        assertThat(lines).contains("- met: hot customer, 8 instances: decisions/s 2.50x Lua on the same key (target"
                + " >= 2.0x), p99 2000 µs against its 3000 µs (target <=), 0.000 CAS attempts and 0.000 conflicts per"
                + " decision, 0 failed decisions (target 0)");
        assertThat(lines).contains("- **missed**: hot customer, 8 instances: admitted 98900 of 100000 allowed, 1000"
                + " short beyond the floor's own 100 (target <= 992, the leased bound over 2 slices)");
    }

    @Test
    void allocation_isWhatTheModuleAddsOverTheFloorsScript_callingAndOtherThreadsTogether() {
        List<AllocationScenario.Row> rows = List.of(
                new AllocationScenario.Row(Duration.ZERO, Kind.QUOTA.label(), 3_000, 500, 0),
                new AllocationScenario.Row(Duration.ZERO, Kind.LUA.label(), 2_400, 600, 0),
                new AllocationScenario.Row(Duration.ZERO, Kind.QUOTA_TRANSFER.label(), 20_000, 1_000, 0),
                new AllocationScenario.Row(Duration.ZERO, Kind.LUA_TRANSFER.label(), 4_000, 1_000, 0));

        List<String> lines = Targets.allocation(rows);

        assertThat(lines).containsExactly(
                "- met: allocation, one caller: this module allocates 3500 bytes per decision, 500 more than"
                        + " (a) Lua token bucket (target <= 1 KB more)",
                "- allocation, one caller: this module, transfer decision allocates 21000 bytes per decision, 16000"
                        + " more than (a) Lua floor, layered");
    }

    @Test
    void allocation_overAKilobyteMoreThanTheFloor_isMissed() {
        List<String> lines = Targets.allocation(List.of(
                new AllocationScenario.Row(Duration.ZERO, Kind.QUOTA.label(), 4_100, 0, 0),
                new AllocationScenario.Row(Duration.ZERO, Kind.LUA.label(), 3_000, 0, 0)));

        assertThat(lines).singleElement().asString().startsWith("- **missed**: allocation, one caller: this module"
                + " allocates 4100 bytes per decision, 1100 more");
    }

    private static RunResult run(String scenario, Kind kind, long perSecond, long p50Nanos) {
        return new RunResult(scenario, Duration.ZERO, kind.label(), perSecond * 10, 10_000_000_000L, perSecond * 10, 0, 0,
                p50Nanos, p50Nanos * 2, new Tally.Exactness(perSecond * 10, perSecond * 10, 0, 0), Map.of(),
                perSecond * 10, null, 1, 1, 0, 0, 0, null, 0, GcPauses.Window.NONE);
    }
}
