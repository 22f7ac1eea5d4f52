package dev.quota.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quota.testkit.MutableClock;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LogThrottleTest {

    private static final Instant START = Instant.parse("2026-11-29T10:00:00Z");

    private final MutableClock clock = MutableClock.at(START);

    private static int written(LogThrottle throttle, int offers) {
        int written = 0;
        for (int i = 0; i < offers; i++) {
            if (throttle.offer().write()) {
                written++;
            }
        }
        return written;
    }

    @Test
    void offer_writesTheBurst_thenTheRate() {
        LogThrottle throttle = new LogThrottle(clock, 5, 2, Duration.ofSeconds(10));

        assertThat(written(throttle, 100)).isEqualTo(5);

        clock.advance(Duration.ofSeconds(2));
        assertThat(written(throttle, 100)).as("2 per second for 2 s").isEqualTo(4);

        clock.advance(Duration.ofHours(1));
        assertThat(written(throttle, 100)).as("never more than the burst").isEqualTo(5);
    }

    @Test
    void summary_comesWithTheFirstOfferSummaryEveryAfterTheFirstSuppressedLine() {
        LogThrottle throttle = new LogThrottle(clock, 1, 1, Duration.ofSeconds(10));
        assertThat(throttle.offer()).isEqualTo(new LogThrottle.Permit(true, null));
        clock.advance(Duration.ofMillis(100));
        for (int i = 0; i < 30; i++) {
            assertThat(throttle.offer().summary()).isNull();
        }

        clock.advance(Duration.ofMillis(9_999));
        assertThat(throttle.offer()).as("9.999 s after the first suppressed line: written, no summary yet")
                .isEqualTo(new LogThrottle.Permit(true, null));
        clock.advance(Duration.ofMillis(1));
        LogThrottle.Permit permit = throttle.offer();

        assertThat(permit.summary()).isEqualTo(new LogThrottle.Summary(30, START.plusMillis(100)));
        assertThat(permit.write()).isFalse();
        assertThat(throttle.offer().summary()).as("the count started over").isNull();
    }

    @Test
    void summary_withWritesInBetween_stillWaitsForSummaryEvery() {
        LogThrottle throttle = new LogThrottle(clock, 1, 1, Duration.ofSeconds(10));
        written(throttle, 5);

        clock.advance(Duration.ofSeconds(2));
        LogThrottle.Permit written = throttle.offer();

        assertThat(written.write()).isTrue();
        assertThat(written.summary()).isNull();
        assertThat(throttle.flush()).isEqualTo(new LogThrottle.Summary(4, START));
    }

    @Test
    void summaryEveryZero_putsTheCountIntoTheNextLineWritten_notIntoSuppressedOnes() {
        LogThrottle throttle = new LogThrottle(clock, 1, 1, Duration.ZERO);
        assertThat(throttle.offer()).isEqualTo(new LogThrottle.Permit(true, null));
        for (int i = 0; i < 41; i++) {
            assertThat(throttle.offer()).isEqualTo(new LogThrottle.Permit(false, null));
        }

        clock.advance(Duration.ofSeconds(1));

        assertThat(throttle.offer()).isEqualTo(new LogThrottle.Permit(true, new LogThrottle.Summary(41, START)));
    }

    @Test
    void summaryIfDue_givesTheSummaryOnceDue_withoutTakingALine() {
        LogThrottle throttle = new LogThrottle(clock, 1, 1, Duration.ofSeconds(10));
        written(throttle, 4);
        clock.advance(Duration.ofMillis(9_999));
        assertThat(throttle.summaryIfDue()).isNull();

        clock.advance(Duration.ofMillis(1));

        assertThat(throttle.summaryIfDue()).isEqualTo(new LogThrottle.Summary(3, START));
        assertThat(throttle.summaryIfDue()).isNull();
        assertThat(throttle.offer().write()).as("the line still there to write").isTrue();
    }

    @Test
    void flush_withNothingSuppressed_isNull() {
        LogThrottle throttle = new LogThrottle(clock, 3, 1, Duration.ofSeconds(10));
        written(throttle, 3);

        assertThat(throttle.flush()).isNull();
    }

    @Test
    void concurrentOffers_withFrozenTime_writeExactlyTheBurst() throws Exception {
        LogThrottle throttle = new LogThrottle(Clock.fixed(START, java.time.ZoneOffset.UTC), 20, 20,
                Duration.ofSeconds(10));
        int threads = 8;
        CountDownLatch go = new CountDownLatch(1);
        AtomicLong writes = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            Future<?>[] done = new Future<?>[threads];
            for (int t = 0; t < threads; t++) {
                done[t] = pool.submit(() -> {
                    go.await();
                    for (int i = 0; i < 1_000; i++) {
                        if (throttle.offer().write()) {
                            writes.incrementAndGet();
                        }
                    }
                    return null;
                });
            }
            go.countDown();
            for (Future<?> f : done) {
                f.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }

        assertThat(writes.get()).isEqualTo(20);
        assertThat(throttle.flush().count()).isEqualTo(threads * 1_000L - 20);
    }

    @Test
    void fastPath_answersAsThePlainPath_overRandomFloodsAndPauses() {
        java.util.Random random = new java.util.Random(20261203);
        for (int round = 0; round < 200; round++) {
            MutableClock time = MutableClock.at(START);
            int burst = 1 + random.nextInt(5);
            double rate = 0.5 + random.nextInt(40);
            Duration every = random.nextBoolean() ? Duration.ZERO : Duration.ofMillis(random.nextInt(3_000));
            LogThrottle fast = new LogThrottle(time, burst, rate, every, true);
            LogThrottle plain = new LogThrottle(time, burst, rate, every, false);
            for (int step = 0; step < 2_000; step++) {
                int what = random.nextInt(100);
                if (what < 80) {
                    assertThat(fast.offer()).as("round %d step %d", round, step).isEqualTo(plain.offer());
                } else if (what < 97) {
                    time.advance(Duration.ofNanos(random.nextInt(random.nextBoolean() ? 2_000_000 : 200_000_000)));
                } else if (what < 99) {
                    assertThat(fast.summaryIfDue()).as("round %d step %d", round, step).isEqualTo(plain.summaryIfDue());
                } else {
                    assertThat(fast.flush()).as("round %d step %d", round, step).isEqualTo(plain.flush());
                }
            }
            assertThat(fast.flush()).isEqualTo(plain.flush());
        }
    }

    @Test
    void flood_pastTheBurst_isCountedWithoutTheLock_andEveryLineReachesTheSummary() {
        LogThrottle throttle = new LogThrottle(clock, 2, 1, Duration.ofSeconds(10));
        written(throttle, 3); // two written, the third starts the suppression

        // the lock is held elsewhere: a line now is only counted, so it does not wait for it
        Thread flood = new Thread(() -> {
            for (int i = 0; i < 1_000; i++) {
                throttle.offer();
            }
        });
        synchronized (throttle) {
            flood.start();
            try {
                flood.join(TimeUnit.SECONDS.toMillis(30)); // generous: it must not wait for this lock at all
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            assertThat(flood.isAlive()).as("the flood waited for the lock").isFalse();
        }

        assertThat(throttle.flush()).isEqualTo(new LogThrottle.Summary(1_001, START));
    }

    @Test
    void badSettings_areRefusedWithTheValue() {
        assertThatThrownBy(() -> new LogThrottle(clock, 0, 1, Duration.ZERO))
                .hasMessage("burst must be >= 1 but was 0");
        assertThatThrownBy(() -> new LogThrottle(clock, 1, 0, Duration.ZERO))
                .hasMessage("linesPerSecond must be positive but was 0.0");
        assertThatThrownBy(() -> new LogThrottle(clock, 1, 1, Duration.ofSeconds(-1)))
                .hasMessage("summaryEvery must not be negative but was PT-1S");
    }
}
