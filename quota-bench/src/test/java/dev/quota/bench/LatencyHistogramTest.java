package dev.quota.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class LatencyHistogramTest {

    @Test
    void percentile_isWithinOneSubBucketOfTheTrueValue() {
        LatencyHistogram h = new LatencyHistogram();
        for (long v = 1; v <= 100_000; v++) {
            h.record(v * 1_000); // 1 us .. 100 ms
        }

        assertThat((double) h.percentile(0.50)).isCloseTo(50_000_000, within(50_000_000 / 64.0));
        assertThat((double) h.percentile(0.99)).isCloseTo(99_000_000, within(99_000_000 / 64.0));
        assertThat(h.percentile(1.0)).isEqualTo(100_000_000);
        assertThat(h.count()).isEqualTo(100_000);
    }

    @Test
    void add_mergesCountsAndMax() {
        LatencyHistogram a = new LatencyHistogram();
        LatencyHistogram b = new LatencyHistogram();
        a.record(10);
        b.record(5_000);
        b.record(7);

        a.add(b);

        assertThat(a.count()).isEqualTo(3);
        assertThat(a.max()).isEqualTo(5_000);
        assertThat(a.percentile(0.5)).isEqualTo(10);
    }

    @Test
    void index_andUpperEdge_coverEveryValueExactlyOnce() {
        for (long v : new long[] {0, 1, 63, 64, 65, 127, 128, 1_000, 123_456_789, Long.MAX_VALUE / 3}) {
            int i = LatencyHistogram.index(v);
            assertThat(LatencyHistogram.upperEdge(i)).isGreaterThanOrEqualTo(v);
            if (i > 0) {
                assertThat(LatencyHistogram.upperEdge(i - 1)).isLessThan(v);
            }
        }
    }
}
