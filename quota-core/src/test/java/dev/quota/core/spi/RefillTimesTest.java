package dev.quota.core.spi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Limit;
import dev.quota.core.Refill;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The one refill-time computation, exact to the nanosecond where a double computation was not. */
class RefillTimesTest {

    /** 1,000 tokens, 7 a day: 1,000 tokens take 12,342,857,142,857,142.86 ns. */
    private static final Limit SEVEN_A_DAY = new Limit("daily", 1000, Refill.greedy(7, Duration.ofDays(1)));

    @Test
    void greedyRefill_roundsUp_whereDoublesAnsweredOneNanosecondShort() {
        // (double) 1000 * 86,400,000,000,000 / 7, rounded up, is ...142: a retry-after one ns too early
        assertThat(RefillTimes.nanosFor(SEVEN_A_DAY, 1000)).isEqualTo(12_342_857_142_857_143L);
    }

    @Test
    void intervalRefill_countsWholePeriods() {
        Limit thirtyAnHour = new Limit("hourly", 100, Refill.interval(30, Duration.ofHours(1)));

        assertThat(RefillTimes.nanosFor(thirtyAnHour, 100)).isEqualTo(Duration.ofHours(4).toNanos());
        assertThat(RefillTimes.nanosFor(thirtyAnHour, 30)).isEqualTo(Duration.ofHours(1).toNanos());
        assertThat(RefillTimes.nanosFor(thirtyAnHour, 0)).isZero();
    }

    @Test
    void fromEmpty_isTheSlowestLimitToFull() {
        Limit tenAMinute = new Limit("burst", 100, Refill.greedy(10, Duration.ofMinutes(1)));
        BucketSpec spec = new BucketSpec(List.of(tenAMinute, SEVEN_A_DAY), 1);

        assertThat(RefillTimes.fromEmptyNanos(spec)).isEqualTo(12_342_857_142_857_143L);
        assertThat(RefillTimes.plus(Long.MAX_VALUE - 1, 2)).isEqualTo(Long.MAX_VALUE);
    }
}
