package dev.quota.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class WholeSecondsTest {

    @Test
    void ceil_roundsAnyFractionUp_andNothingBelowZero() {
        assertThat(WholeSeconds.ceil(Duration.ZERO)).isZero();
        assertThat(WholeSeconds.ceil(Duration.ofSeconds(-3))).isZero();
        assertThat(WholeSeconds.ceil(Duration.ofNanos(1))).isEqualTo(1);
        assertThat(WholeSeconds.ceil(Duration.ofMillis(200))).isEqualTo(1);
        assertThat(WholeSeconds.ceil(Duration.ofSeconds(60))).isEqualTo(60);
        assertThat(WholeSeconds.ceil(Duration.ofSeconds(60, 1))).isEqualTo(61);
    }
}
