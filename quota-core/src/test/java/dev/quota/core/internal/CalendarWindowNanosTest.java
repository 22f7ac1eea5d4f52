package dev.quota.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

/** A decision reads a calendar window's time left in nanoseconds: the same figure as its Duration. */
class CalendarWindowNanosTest {

    private static final CalendarWindow DAY = new CalendarWindow(Instant.parse("2026-03-29T00:00:00Z"),
            Instant.parse("2026-03-30T00:00:00Z"));

    @Test
    void nanosLeft_withinTheWindow_isRemainingToTheNanosecond() {
        Instant now = Instant.parse("2026-03-29T13:45:10.750000001Z");

        assertThat(DAY.nanosLeft(now)).isEqualTo(DAY.remaining(now).toNanos()).isEqualTo(36_889_249_999_999L);
    }

    @Test
    void nanosLeft_atAndPastTheEnd_isZero() {
        assertThat(DAY.nanosLeft(Instant.parse("2026-03-30T00:00:00Z"))).isZero();
        assertThat(DAY.nanosLeft(Instant.parse("2026-03-30T00:00:01.5Z"))).isZero();
    }
}
