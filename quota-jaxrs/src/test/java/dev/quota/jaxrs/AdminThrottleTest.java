package dev.quota.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.testkit.MutableClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class AdminThrottleTest {

    private final MutableClock clock = MutableClock.at("2026-11-29T12:00:00Z");

    @Test
    void fiveFailures_blockForTenSeconds_thenOneAttemptEveryTen() {
        AdminThrottle throttle = new AdminThrottle(5, Duration.ofSeconds(10), clock, 100);
        for (int i = 0; i < 4; i++) {
            throttle.failed("203.0.113.7");
        }
        assertThat(throttle.blockedFor("203.0.113.7")).isZero();

        throttle.failed("203.0.113.7");

        assertThat(throttle.blockedFor("203.0.113.7")).isEqualTo(Duration.ofSeconds(10));
        clock.advance(Duration.ofSeconds(4));
        assertThat(throttle.blockedFor("203.0.113.7")).isEqualTo(Duration.ofSeconds(6));
        clock.advance(Duration.ofSeconds(6));
        assertThat(throttle.blockedFor("203.0.113.7")).isZero();
    }

    @Test
    void table_holdsAtMostMaxAddresses_whateverClientsSend() {
        AdminThrottle throttle = new AdminThrottle(5, Duration.ofSeconds(10), clock, 100);

        for (int i = 0; i < 20_000; i++) {
            throttle.failed("10." + (i >> 16 & 255) + "." + (i >> 8 & 255) + "." + (i & 255));
        }

        assertThat(throttle.size()).isLessThanOrEqualTo(100);
    }

    @Test
    void anAddress_isForgottenOnceItsAttemptsAreAllBack() {
        AdminThrottle throttle = new AdminThrottle(5, Duration.ofSeconds(10), clock, 100);
        throttle.failed("203.0.113.7");
        assertThat(throttle.size()).isEqualTo(1);

        clock.advance(Duration.ofSeconds(50));

        assertThat(throttle.size()).isZero();
    }

    @Test
    void key_groupsIpv6By64_andCutsLongTexts() {
        assertThat(AdminThrottle.key("2001:db8:1:2::a")).isEqualTo("2001:db8:1:2::/64");
        assertThat(AdminThrottle.key("::ffff:192.0.2.1")).isEqualTo("192.0.2.1");
        assertThat(AdminThrottle.key("x".repeat(500))).hasSize(64);
    }
}
