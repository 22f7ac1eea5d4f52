package dev.quota.core.spi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Limit;
import dev.quota.core.Refill;
import java.math.BigInteger;
import java.time.Duration;
import java.util.List;
import java.util.Random;
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
    void refillTimesPastALong_saturate() {
        Limit billionAYear = new Limit("yearly", 1_000_000_000L, Refill.greedy(1, Duration.ofDays(365)));
        Limit billionAYearInterval = new Limit("yearly", 1_000_000_000L, Refill.interval(1, Duration.ofDays(365)));

        assertThat(RefillTimes.nanosFor(billionAYear, 1_000_000_000L)).isEqualTo(Long.MAX_VALUE);
        assertThat(RefillTimes.nanosFor(billionAYearInterval, 1_000_000_000L)).isEqualTo(Long.MAX_VALUE);
        // 106 days of nanoseconds, times 1,000: just under 2^63, still exact
        assertThat(RefillTimes.nanosFor(new Limit("l", 1_000, Refill.greedy(1, Duration.ofDays(106))), 1_000))
                .isEqualTo(Duration.ofDays(106).toNanos() * 1_000);
    }

    @Test
    void nanosFor_isTheExactRoundedUpQuotient_forAnyTokensAndPeriod() {
        Random random = new Random(7);
        for (int i = 0; i < 100_000; i++) {
            long capacity = 1 + (long) Math.pow(10, random.nextInt(13)) * (1 + random.nextInt(9));
            long tokens = 1 + (long) Math.pow(10, random.nextInt(10)) * random.nextInt(10);
            Duration period = Duration.ofSeconds((long) Math.pow(10, random.nextInt(9)) * random.nextInt(10),
                    random.nextInt(1_000_000_000));
            if (period.isZero()) {
                continue;
            }
            long missing = 1 + Math.floorMod(random.nextLong(), capacity);
            BigInteger nanos = BigInteger.valueOf(period.getSeconds())
                    .multiply(BigInteger.valueOf(1_000_000_000L)).add(BigInteger.valueOf(period.getNano()));
            BigInteger big = BigInteger.valueOf(missing);
            BigInteger t = BigInteger.valueOf(tokens);
            BigInteger greedy = big.multiply(nanos).add(t).subtract(BigInteger.ONE).divide(t);
            BigInteger interval = big.add(t).subtract(BigInteger.ONE).divide(t).multiply(nanos);
            BigInteger max = BigInteger.valueOf(Long.MAX_VALUE);
            assertThat(RefillTimes.nanosFor(new Limit("g", capacity, Refill.greedy(tokens, period)), missing))
                    .isEqualTo(greedy.min(max).longValueExact());
            assertThat(RefillTimes.nanosFor(new Limit("i", capacity, Refill.interval(tokens, period)), missing))
                    .isEqualTo(interval.min(max).longValueExact());
        }
    }

    @Test
    void fromEmpty_isTheSlowestLimitToFull() {
        Limit tenAMinute = new Limit("burst", 100, Refill.greedy(10, Duration.ofMinutes(1)));
        BucketSpec spec = BucketSpec.of(List.of(tenAMinute, SEVEN_A_DAY), 1);

        assertThat(RefillTimes.fromEmptyNanos(spec)).isEqualTo(12_342_857_142_857_143L);
        assertThat(RefillTimes.plus(Long.MAX_VALUE - 1, 2)).isEqualTo(Long.MAX_VALUE);
    }
}
