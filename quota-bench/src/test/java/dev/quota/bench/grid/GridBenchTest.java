package dev.quota.bench.grid;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The grid scenario's arithmetic: percentiles over every member's decisions, and the table. */
class GridBenchTest {

    @Test
    void percentile_isTheNearestRankOfTheSortedLatencies() {
        long[] sorted = new long[100];
        for (int i = 0; i < sorted.length; i++) {
            sorted[i] = (i + 1) * 1_000L;
        }

        assertThat(GridBench.percentile(sorted, 0.50)).isEqualTo(50_000);
        assertThat(GridBench.percentile(sorted, 0.99)).isEqualTo(99_000);
        assertThat(GridBench.percentile(new long[] {7}, 0.99)).isEqualTo(7);
        assertThat(GridBench.percentile(new long[0], 0.99)).isZero();
    }

    @Test
    void table_showsEveryRunWithItsAdmittedAndFailedDecisions() {
        String table = GridBench.table(List.of(new GridBench.Row("one busy customer", "1 limit", "quota-cas",
                1234.6, 810, 11_669, 18_519, 18_519, 0)));

        assertThat(table).contains("| one busy customer | 1 limit | quota-cas | 1,235 | 810 | 11,669 | 18,519 of 18,519 | 0 |");
    }
}
