package dev.quota.jaxrs.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.testkit.MutableClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class AdminThrottleTest {

    private final MutableClock clock = MutableClock.at("2026-11-29T12:00:00Z");

    @Test
    void fiveFailures_blockForTenSeconds_thenOneAttemptEveryTen() {
        AdminThrottle throttle = new AdminThrottle(5, Duration.ofSeconds(10), clock, 100);
        for (int i = 0; i < 4; i++) {
            assertThat(throttle.failed("203.0.113.7")).isZero();
        }
        assertThat(throttle.blockedFor("203.0.113.7")).isZero();

        assertThat(throttle.failed("203.0.113.7")).as("the fifth still takes an attempt").isZero();

        assertThat(throttle.blockedFor("203.0.113.7")).isEqualTo(Duration.ofSeconds(10));
        assertThat(throttle.failed("203.0.113.7")).isEqualTo(Duration.ofSeconds(10));
        clock.advance(Duration.ofSeconds(4));
        assertThat(throttle.failed("203.0.113.7")).as("a refused call takes nothing").isEqualTo(Duration.ofSeconds(6));
        clock.advance(Duration.ofSeconds(6));
        assertThat(throttle.blockedFor("203.0.113.7")).isZero();
        assertThat(throttle.failed("203.0.113.7")).isZero();
        assertThat(throttle.failed("203.0.113.7")).isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    void concurrentWrongTokens_fromOneAddress_takeExactlyFiveAttempts() throws Exception {
        AdminThrottle throttle = new AdminThrottle(5, Duration.ofSeconds(10), clock, 100);
        int threads = 8;
        CountDownLatch go = new CountDownLatch(1);
        AtomicInteger allowed = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                done.add(pool.submit(() -> {
                    go.await();
                    for (int i = 0; i < 50; i++) {
                        if (throttle.failed("203.0.113.7").isZero()) {
                            allowed.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> f : done) {
                f.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }

        assertThat(allowed.get()).isEqualTo(5);
    }

    @Test
    void table_holdsAtMostMaxAddresses_whateverClientsSend() {
        AdminThrottle throttle = new AdminThrottle(5, Duration.ofSeconds(10), clock, 100);

        for (int i = 0; i < 20_000; i++) {
            throttle.failed("10." + (i >> 16 & 255) + "." + (i >> 8 & 255) + "." + (i & 255));
        }

        assertThat(throttle.size()).isLessThanOrEqualTo(100);
        // the newest address kept its first failure: four more are answered 401, the fifth is blocked
        String newest = "10.0.78.31";
        for (int i = 0; i < 4; i++) {
            assertThat(throttle.failed(newest)).isZero();
        }
        assertThat(throttle.failed(newest)).isPositive();
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
