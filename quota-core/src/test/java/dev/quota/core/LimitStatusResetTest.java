package dev.quota.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A decision's status keeps its time to full in nanoseconds and makes the {@code Duration} when
 * asked: it must read, compare and round exactly as a status given the {@code Duration}.
 */
class LimitStatusResetTest {

    private static final Limit TEN_A_SECOND = new Limit("burst", 20, Refill.greedy(10, Duration.ofSeconds(1)));
    private static final LimitStatus.Head HEAD = new LimitStatus.Head("free-burst", TEN_A_SECOND, LimitStatus.Role.PLAN);

    @Test
    void statusOfNanos_readsEqualsAndRoundsAsTheStatusOfItsDuration() {
        long nanos = 1_200_000_001L;
        LimitStatus lazy = LimitStatus.ofNanos(HEAD, 8, nanos, Duration.ZERO);
        LimitStatus given = LimitStatus.of("free-burst", TEN_A_SECOND, LimitStatus.Role.PLAN, 8,
                Duration.ofNanos(nanos), Duration.ZERO);

        assertThat(lazy.resetSeconds()).isEqualTo(2);
        assertThat(lazy).isEqualTo(given).hasSameHashCodeAs(given).hasToString(given.toString());
        assertThat(lazy.resetAfter()).isEqualTo(Duration.ofNanos(nanos)).isSameAs(lazy.resetAfter());
        assertThat(lazy.withRetryAfter(Duration.ofSeconds(3)).resetAfter()).isEqualTo(Duration.ofNanos(nanos));
    }

    @Test
    void resetSeconds_ofWholeSecondsAndOfZeroNanos_isNotRoundedUp() {
        assertThat(LimitStatus.ofNanos(HEAD, 0, 2_000_000_000L, Duration.ZERO).resetSeconds()).isEqualTo(2);
        assertThat(LimitStatus.ofNanos(HEAD, 20, 0, Duration.ZERO).resetSeconds()).isZero();
    }
}
