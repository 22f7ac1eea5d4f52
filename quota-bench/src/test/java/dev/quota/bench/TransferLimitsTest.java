package dev.quota.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import org.junit.jupiter.api.Test;

/** The transfer workload's arithmetic: the tightest of a customer's buckets, the shared one over all. */
class TransferLimitsTest {

    /** Noon in Berlin: a short window stays within the day. */
    private static final Instant NOON = ZonedDateTime.of(2026, 3, 10, 12, 0, 0, 0, TransferLimits.ZONE).toInstant();
    private static final long TWO_SECONDS = Duration.ofSeconds(2).toNanos();

    private static TransferLimits variant(String bucket) {
        return TransferLimits.VARIANTS.stream().filter(v -> v.bucket().startsWith(bucket)).findFirst().orElseThrow()
                .limits();
    }

    @Test
    void perCustomerAllowed_isTheTightestOfTheCustomersBuckets() {
        // burst 20 + 10/s over 2 s: 40; every other bucket is looser
        assertThat(variant("plan burst").perCustomerAllowed(TWO_SECONDS, NOON)).isEqualTo(40);
        // interval and calendar limits do not refill within the window
        assertThat(variant("plan hourly").perCustomerAllowed(TWO_SECONDS, NOON)).isEqualTo(30);
        assertThat(variant("plan daily").perCustomerAllowed(TWO_SECONDS, NOON)).isEqualTo(25);
        // 15 per minute, greedy: one more every 4 s
        assertThat(variant("rule per customer").perCustomerAllowed(Duration.ofSeconds(5).toNanos(), NOON))
                .isEqualTo(16);
        // 1,000 a day at 100 a transfer
        assertThat(variant("amount").perCustomerAllowed(TWO_SECONDS, NOON)).isEqualTo(10);
    }

    @Test
    void aWindowAcrossBerlinMidnight_allowsTwoDaysOfTheCalendarBuckets() {
        Instant justAfterMidnight = ZonedDateTime.of(2026, 3, 11, 0, 0, 1, 0, TransferLimits.ZONE).toInstant();

        assertThat(TransferLimits.calendarDays(TWO_SECONDS, justAfterMidnight)).isEqualTo(2);
        assertThat(variant("plan daily").perCustomerAllowed(TWO_SECONDS, justAfterMidnight)).isEqualTo(50);
        assertThat(TransferLimits.calendarDays(TWO_SECONDS, NOON)).isEqualTo(1);
    }

    @Test
    void exactness_countsTheSharedBucketOverAllCustomers() {
        TransferLimits shared = variant("rule shared"); // 40 per second for everyone: 120 over 2 s
        Tally tally = new Tally(4);
        for (int c = 0; c < 4; c++) {
            for (int i = 0; i < 100; i++) {
                tally.count(c, i < 31 ? Outcome.ADMITTED : Outcome.REJECTED);
            }
        }

        Tally.Exactness e = shared.exactness(tally, TWO_SECONDS, NOON, 0, 4);

        // each customer's own buckets allow far more; together 124 against the shared 120
        assertThat(e.admitted()).isEqualTo(124);
        assertThat(e.allowed()).isEqualTo(120);
        assertThat(e.customersOver()).isEqualTo(1);
        assertThat(e.worstExcess()).isEqualTo(4);
    }

    @Test
    void exactness_capsEachCustomerAtItsTightestBucket() {
        TransferLimits hourly = variant("plan hourly");
        Tally tally = new Tally(2);
        for (int i = 0; i < 40; i++) {
            tally.count(0, i < 30 ? Outcome.ADMITTED : Outcome.REJECTED);
            tally.count(1, i < 31 ? Outcome.ADMITTED : Outcome.REJECTED);
        }

        Tally.Exactness e = hourly.exactness(tally, TWO_SECONDS, NOON, 0, 2);

        assertThat(e.allowed()).isEqualTo(60);
        assertThat(e.customersOver()).isEqualTo(1);
        assertThat(e.exact()).isFalse();
    }
}
