package dev.quota.core.resilience;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quota.core.Limit;
import dev.quota.core.QuotaStoreException;
import dev.quota.core.Refill;
import dev.quota.core.resilience.CircuitBreakerStore.State;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import dev.quota.testkit.MutableClock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The breaker's state machine, on a frozen clock: no sleeps, the probe is run by hand. */
class CircuitBreakerStoreTest {

    private static final BucketKey KEY = new BucketKey("quota:p:breaker-test");
    private static final BucketSpec SPEC = new BucketSpec(
            List.of(new Limit("burst", 1000, Refill.greedy(1, Duration.ofHours(1)))), 1);
    /** Long enough that the probe thread never runs during a test; tests call probe() themselves. */
    private static final Duration NEVER = Duration.ofHours(1);

    private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
    private final FlakyStore store = new FlakyStore(clock);
    private final List<String> transitions = new CopyOnWriteArrayList<>();
    private CircuitBreakerStore breaker;

    @AfterEach
    void closeBreaker() {
        if (breaker != null) {
            breaker.close();
        }
    }

    private CircuitBreakerStoreBuilder builder() {
        return CircuitBreakerStore.builder(store).clock(clock).probeInterval(NEVER)
                .listener((from, to) -> transitions.add(from + "->" + to));
    }

    private void failTimes(int n) {
        for (int i = 0; i < n; i++) {
            assertThatThrownBy(() -> breaker.tryConsume(KEY, SPEC, 1)).isInstanceOf(QuotaStoreException.class);
        }
    }

    @Test
    void closed_passesCallsThroughToTheStore() {
        breaker = builder().build();

        assertThat(breaker.tryConsume(KEY, SPEC, 1).remaining()).containsExactly(999);
        assertThat(breaker.peek(KEY, SPEC).remaining()).containsExactly(999);
        assertThat(breaker.state()).isEqualTo(State.CLOSED);
        assertThat(store.calls()).isEqualTo(2);
    }

    @Test
    void afterFiveConsecutiveFailures_opensAndFailsFastWithoutCallingTheStore() {
        breaker = builder().build();
        store.down(true);

        failTimes(4);
        assertThat(breaker.state()).isEqualTo(State.CLOSED);
        failTimes(1);

        assertThat(breaker.state()).isEqualTo(State.OPEN);
        assertThat(store.calls()).isEqualTo(5);
        assertThatThrownBy(() -> breaker.tryConsume(KEY, SPEC, 1))
                .isInstanceOf(QuotaStoreException.class).hasMessageContaining("circuit breaker open");
        assertThatThrownBy(() -> breaker.addTokens(KEY, SPEC, 1)).isInstanceOf(QuotaStoreException.class);
        assertThatThrownBy(() -> breaker.reset(KEY)).isInstanceOf(QuotaStoreException.class);
        assertThat(store.calls()).isEqualTo(5);
        assertThat(transitions).containsExactly("CLOSED->OPEN");
    }

    @Test
    void aSuccess_restartsTheCountOfConsecutiveFailures() {
        breaker = builder().failureRateThreshold(100).build();
        for (int round = 0; round < 5; round++) {
            store.down(true);
            failTimes(4);
            store.down(false);
            breaker.tryConsume(KEY, SPEC, 1);
        }

        assertThat(breaker.state()).isEqualTo(State.CLOSED);
    }

    @Test
    void failureRateAtThreshold_opensOnceTheWindowIsFull() {
        breaker = builder().slidingWindowSize(10).failureRateThreshold(50).build();
        // fail, succeed, fail, succeed...: never two failures in a row, half of all calls
        for (int i = 0; i < 9; i++) {
            store.down(i % 2 == 0);
            try {
                breaker.tryConsume(KEY, SPEC, 1);
            } catch (QuotaStoreException expected) {
                // counted
            }
        }
        assertThat(breaker.state()).isEqualTo(State.CLOSED);

        store.down(false);
        breaker.tryConsume(KEY, SPEC, 1);
        assertThat(breaker.state()).isEqualTo(State.CLOSED);
        store.down(true);
        failTimes(1);

        // the last 10 calls: 5 failures = 50 %
        assertThat(breaker.state()).isEqualTo(State.OPEN);
    }

    @Test
    void failureRateBelowThreshold_staysClosed() {
        breaker = builder().slidingWindowSize(10).failureRateThreshold(50).build();
        for (int i = 0; i < 100; i++) {
            store.down(i % 3 == 0); // a third of the calls fail
            try {
                breaker.tryConsume(KEY, SPEC, 1);
            } catch (QuotaStoreException expected) {
                // counted
            }
        }

        assertThat(breaker.state()).isEqualTo(State.CLOSED);
    }

    @Test
    void exceptionsOtherThanStoreFailures_areNotCounted() {
        breaker = builder().build();

        for (int i = 0; i < 10; i++) {
            assertThatThrownBy(() -> breaker.tryConsume(KEY, new BucketSpec(SPEC.limits(), 1), -1))
                    .isNotInstanceOf(QuotaStoreException.class);
        }

        assertThat(breaker.state()).isEqualTo(State.CLOSED);
    }

    @Test
    void withHealthCheck_probeClosesOnlyAfterOpenDurationAndOnlyWhenTheCheckPasses() {
        AtomicBoolean healthy = new AtomicBoolean(false);
        AtomicInteger checks = new AtomicInteger();
        breaker = builder().openDuration(Duration.ofSeconds(2)).healthCheck(() -> {
            checks.incrementAndGet();
            if (!healthy.get()) {
                throw new QuotaStoreException("still down");
            }
        }).build();
        store.down(true);
        failTimes(5);

        healthy.set(true);
        clock.advance(Duration.ofMillis(1999));
        breaker.probe();
        assertThat(breaker.state()).isEqualTo(State.OPEN);
        assertThat(checks).hasValue(0);

        healthy.set(false);
        clock.advance(Duration.ofMillis(1));
        breaker.probe();
        assertThat(breaker.state()).isEqualTo(State.OPEN);
        assertThat(checks).hasValue(1);

        healthy.set(true);
        store.down(false);
        breaker.probe();
        assertThat(breaker.state()).isEqualTo(State.CLOSED);
        assertThat(breaker.tryConsume(KEY, SPEC, 1).consumed()).isTrue();
        assertThat(transitions).containsExactly("CLOSED->OPEN", "OPEN->CLOSED");
    }

    @Test
    void withHealthCheck_callsKeepFailingFastAfterOpenDuration_untilTheProbeCloses() {
        breaker = builder().healthCheck(() -> { }).build();
        store.down(true);
        failTimes(5);
        store.down(false);

        clock.advance(Duration.ofMinutes(5));
        assertThatThrownBy(() -> breaker.tryConsume(KEY, SPEC, 1)).isInstanceOf(QuotaStoreException.class);
        assertThat(store.calls()).isEqualTo(5);

        breaker.probe();
        assertThat(breaker.tryConsume(KEY, SPEC, 1).consumed()).isTrue();
    }

    @Test
    void afterClosing_needsFiveNewFailuresToOpenAgain() {
        breaker = builder().healthCheck(() -> { }).build();
        store.down(true);
        failTimes(5);
        clock.advance(Duration.ofSeconds(1));
        breaker.probe();

        failTimes(4);
        assertThat(breaker.state()).isEqualTo(State.CLOSED);
        failTimes(1);
        assertThat(breaker.state()).isEqualTo(State.OPEN);
    }

    @Test
    void withoutHealthCheck_afterOpenDuration_aSuccessfulTrialCallCloses() {
        breaker = builder().openDuration(Duration.ofSeconds(1)).build();
        store.down(true);
        failTimes(5);

        clock.advance(Duration.ofMillis(999));
        failTimes(1);
        assertThat(store.calls()).isEqualTo(5);

        clock.advance(Duration.ofMillis(1));
        store.down(false);
        assertThat(breaker.tryConsume(KEY, SPEC, 1).consumed()).isTrue();

        assertThat(breaker.state()).isEqualTo(State.CLOSED);
        assertThat(transitions).containsExactly("CLOSED->OPEN", "OPEN->HALF_OPEN", "HALF_OPEN->CLOSED");
    }

    @Test
    void withoutHealthCheck_aFailedTrialCallReopensForAnotherOpenDuration() {
        breaker = builder().openDuration(Duration.ofSeconds(1)).build();
        store.down(true);
        failTimes(5);
        clock.advance(Duration.ofSeconds(1));

        failTimes(1);
        assertThat(breaker.state()).isEqualTo(State.OPEN);
        assertThat(store.calls()).isEqualTo(6);

        clock.advance(Duration.ofMillis(999));
        failTimes(1);
        assertThat(store.calls()).isEqualTo(6);
        assertThat(transitions).containsExactly("CLOSED->OPEN", "OPEN->HALF_OPEN", "HALF_OPEN->OPEN");
    }

    @Test
    void halfOpen_letsOneTrialThroughAndFailsTheOthersFast() throws Exception {
        breaker = builder().openDuration(Duration.ofSeconds(1)).build();
        store.down(true);
        failTimes(5);
        clock.advance(Duration.ofSeconds(1));
        store.down(false);
        store.hold();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<Boolean> trial = pool.submit(() -> breaker.tryConsume(KEY, SPEC, 1).consumed());
            while (store.calls() < 6) {
                Thread.onSpinWait(); // the trial has reached the store and waits there
            }
            assertThat(breaker.state()).isEqualTo(State.HALF_OPEN);

            failTimes(3);
            assertThat(store.calls()).isEqualTo(6);

            store.release();
            assertThat(trial.get(10, TimeUnit.SECONDS)).isTrue();
            assertThat(breaker.state()).isEqualTo(State.CLOSED);
        } finally {
            store.release();
            pool.shutdownNow();
        }
    }

    @Test
    void aFailingListener_doesNotBreakTheBreaker() {
        breaker = CircuitBreakerStore.builder(store).clock(clock).probeInterval(NEVER)
                .listener((from, to) -> {
                    throw new IllegalStateException("listener bug");
                }).build();
        store.down(true);

        failTimes(5);

        assertThat(breaker.state()).isEqualTo(State.OPEN);
    }

    @Test
    void describe_namesTheDelegate() {
        breaker = builder().build();

        assertThat(breaker.describe()).isEqualTo("FlakyStore over in-JVM buckets (this instance only) behind a circuit breaker");
    }

    @Test
    void builder_rejectsBadSettingsEchoingTheValue() {
        CircuitBreakerStoreBuilder builder = CircuitBreakerStore.builder(store);

        assertThatThrownBy(() -> builder.failureThreshold(0))
                .hasMessage("failureThreshold must be >= 1 but was 0");
        assertThatThrownBy(() -> builder.failureRateThreshold(101))
                .hasMessage("failureRateThreshold must be in 1..100 but was 101");
        assertThatThrownBy(() -> builder.slidingWindowSize(0))
                .hasMessage("slidingWindowSize must be >= 1 but was 0");
        assertThatThrownBy(() -> builder.openDuration(Duration.ZERO))
                .hasMessage("openDuration must be positive but was PT0S");
        assertThatThrownBy(() -> builder.probeInterval(Duration.ofMillis(-1)))
                .hasMessage("probeInterval must be positive but was PT-0.001S");
    }
}
