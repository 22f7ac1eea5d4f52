package dev.quota.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HopScenarioTest {

    private static final long RTT = 4_500_000;

    @Test
    void roundTrips_areTheMedianOfTheRoundsDifferences_inAddedRoundTripsOfTheHop() {
        // differences 4.5, 9.0, 5.4 ms: the median 5.4 ms is 1.2 round trips of 4.5 ms
        HopScenario.Row row = new HopScenario.Row("transfer", List.of(new HopScenario.Round(2_000_000, 6_500_000),
                new HopScenario.Round(1_000_000, 10_000_000), new HopScenario.Round(1_600_000, 7_000_000)), RTT,
                Map.of("EVALSHA", 1.0), 0);

        assertThat(row.difference()).isEqualTo(5_400_000);
        assertThat(row.roundTrips()).isEqualTo(1.2);
        assertThat(row.fewestRoundTrips()).isEqualTo(1.0);
        assertThat(row.mostRoundTrips()).isEqualTo(2.0);
        assertThat(row.direct()).isEqualTo(1_600_000);
        assertThat(row.hop()).isEqualTo(7_000_000);
    }

    @Test
    void median_ofAnEvenCount_isTheMeanOfTheTwoMiddleValues() {
        assertThat(HopScenario.median(new long[] {9, 1, 5})).isEqualTo(5);
        assertThat(HopScenario.median(new long[] {4, 1, 10, 6})).isEqualTo(5);
    }

    @Test
    void hopTarget_isMetAtOnePointTwoRoundTrips_andMissedAboveOrWithErrors() {
        HopScenario.Row atTarget = new HopScenario.Row("POST", List.of(new HopScenario.Round(0, 5_400_000)), RTT,
                Map.of("EVALSHA", 1.0), 0);
        HopScenario.Row twoScripts = new HopScenario.Row("POST", List.of(new HopScenario.Round(0, 9_000_000)), RTT,
                Map.of("EVALSHA", 2.0), 0);
        HopScenario.Row failed = new HopScenario.Row("GET", List.of(new HopScenario.Round(0, 4_500_000)), RTT,
                Map.of("EVALSHA", 1.0), 3);

        List<String> lines = Targets.hop(new HopScenario.Result(Duration.ofNanos(RTT), "proxy", 50_000, 4_550_000,
                List.of(atTarget, twoScripts, failed)));

        assertThat(lines).containsExactly(
                "- met: behind a hop of 4.50 ms: POST costs +5.40 ms, 1.20 round trips more than direct (target <= 1.2),"
                        + " medians of 1 rounds of 15; 1.00 Redis commands per request; 0 errors",
                "- **missed**: behind a hop of 4.50 ms: POST costs +9.00 ms, 2.00 round trips more than direct"
                        + " (target <= 1.2), medians of 1 rounds of 15; 2.00 Redis commands per request; 0 errors",
                "- **missed**: behind a hop of 4.50 ms: GET costs +4.50 ms, 1.00 round trips more than direct"
                        + " (target <= 1.2), medians of 1 rounds of 15; 1.00 Redis commands per request; 3 errors");
    }
}
