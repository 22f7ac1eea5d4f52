package dev.quota.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The retry-after a decision reports is the stores' own refill time, never rounded down. */
class DrawRefillTimeTest {

    @Test
    void refillTime_ofAGreedyLimit_isNotOneNanosecondShort() {
        Limit sevenADay = new Limit("daily", 1000, Refill.greedy(7, Duration.ofDays(1)));

        assertThat(Draw.refillTime(sevenADay, 1000)).isEqualTo(Duration.ofNanos(12_342_857_142_857_143L));
    }
}
