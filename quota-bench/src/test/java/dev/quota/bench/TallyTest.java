package dev.quota.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class TallyTest {

    private static final LimitSpec TEN_PER_SECOND = new LimitSpec(10, Duration.ofSeconds(1));

    @Test
    void allowedOver_isAFullBucketPlusTheRefill() {
        assertThat(TEN_PER_SECOND.allowedOver(0)).isEqualTo(10);
        assertThat(TEN_PER_SECOND.allowedOver(Duration.ofMillis(2_550).toNanos())).isEqualTo(35);
    }

    @Test
    void exactness_capsEachCustomerAtItsRequestsAndItsLimit() {
        Tally tally = new Tally(2);
        for (int i = 0; i < 30; i++) {
            tally.count(0, i < 12 ? Outcome.ADMITTED : Outcome.REJECTED);
        }
        tally.count(1, Outcome.ADMITTED);
        tally.count(1, Outcome.ERROR);

        Tally.Exactness e = tally.exactness(TEN_PER_SECOND, Duration.ofMillis(100).toNanos(), 0, 2);

        // customer 0: 12 admitted, 11 allowed (10 + 1 refilled in 100 ms); customer 1: 1 of 2
        assertThat(e.admitted()).isEqualTo(13);
        assertThat(e.allowed()).isEqualTo(13);
        assertThat(e.customersOver()).isEqualTo(1);
        assertThat(e.worstExcess()).isEqualTo(1);
        assertThat(e.exact()).isFalse();
    }
}
