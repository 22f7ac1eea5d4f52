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

    private static RunResult run(String scenario, Kind kind, long perSecond, long p50Nanos) {
        return new RunResult(scenario, Duration.ZERO, kind.label(), perSecond * 10, 10_000_000_000L, perSecond * 10, 0, 0,
                p50Nanos, p50Nanos * 2, new Tally.Exactness(perSecond * 10, perSecond * 10, 0, 0), Map.of(),
                perSecond * 10, null, 1, 1, 0, 0, 0, null);
    }
}
