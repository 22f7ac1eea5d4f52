package dev.quota.core.resilience;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quota.core.Limit;
import dev.quota.core.QuotaStoreException;
import dev.quota.core.Refill;
import dev.quota.core.resilience.CircuitBreakerStore.State;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.Take;
import dev.quota.testkit.Await;
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

/**
 * The breaker's state machine. Failsafe measures the open duration by {@link System#nanoTime()}: a
 * test that must stay open uses an open duration of an hour, one that must get past it uses a few
 * milliseconds and polls with {@link Await}; the probe is run by hand.
 */
class CircuitBreakerStoreTest {

    private static final BucketKey KEY = new BucketKey("quota:p:breaker-test");
    private static final BucketSpec SPEC = BucketSpec.of(
            List.of(new Limit("burst", 1000, Refill.greedy(1, Duration.ofHours(1)))), 1);
    /** A consume the store refuses as a bad argument: not a store failure. */
    private static final List<Take> TWICE = List.of(Take.of(KEY, SPEC, 1), Take.of(KEY, SPEC, 1));
    /** Long enough that the probe thread never runs and the breaker never half-opens during a test. */
    private static final Duration NEVER = Duration.ofHours(1);
    /** Short enough that a test gets past the open duration at once; polled, never slept. */
    private static final Duration SHORT = Duration.ofMillis(20);
    private static final Duration PATIENCE = Duration.ofSeconds(10);

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
        return CircuitBreakerStore.builder(store).probeInterval(NEVER)
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
    void aWindowOfSuccesses_recordsTheNextSuccessWithoutALock_untilAFailure() {
        breaker = builder().slidingWindowSize(10).build();
        for (int i = 0; i < 9; i++) {
            breaker.tryConsume(KEY, SPEC, 1);
        }
        assertThat(breaker.recordsSuccessWithoutLock()).as("9 of 10 calls recorded").isFalse();

        breaker.tryConsume(KEY, SPEC, 1);
        assertThat(breaker.recordsSuccessWithoutLock()).as("a full window without a failure").isTrue();

        store.down(true);
        failTimes(1);
        assertThat(breaker.recordsSuccessWithoutLock()).isFalse();
        store.down(false);
        for (int i = 0; i < 9; i++) {
            breaker.tryConsume(KEY, SPEC, 1);
        }
        assertThat(breaker.recordsSuccessWithoutLock()).as("the failure is still in the window").isFalse();
        breaker.tryConsume(KEY, SPEC, 1);
        assertThat(breaker.recordsSuccessWithoutLock()).isTrue();
    }

    @Test
    void aWindowShorterThanTheFailureThreshold_recordsEverySuccess() {
        breaker = builder().slidingWindowSize(3).failureThreshold(5).failureRateThreshold(100).build();
        for (int i = 0; i < 10; i++) {
            breaker.tryConsume(KEY, SPEC, 1);
        }
        // three clean calls say nothing of Failsafe's last five
        assertThat(breaker.recordsSuccessWithoutLock()).isFalse();
    }

    @Test
    void afterACleanWindow_fiveFailuresStillOpen() {
        breaker = builder().build();
        for (int i = 0; i < 20; i++) {
            breaker.tryConsume(KEY, SPEC, 1);
        }
        assertThat(breaker.recordsSuccessWithoutLock()).isTrue();

        store.down(true);
        failTimes(4);
        assertThat(breaker.state()).isEqualTo(State.CLOSED);
        failTimes(1);
        assertThat(breaker.state()).isEqualTo(State.OPEN);
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
            assertThatThrownBy(() -> breaker.tryConsume(TWICE)).isInstanceOf(IllegalArgumentException.class);
        }

        assertThat(store.calls()).as("every call reached the store").isEqualTo(10);
        assertThat(breaker.state()).isEqualTo(State.CLOSED);
    }

    /** Runs the probe until the breaker closes. */
    private void probeUntilClosed() {
        Await.until(PATIENCE, () -> {
            breaker.probe();
            return breaker.state() == State.CLOSED;
        }, () -> "the probe closes the breaker");
    }

    @Test
    void withHealthCheck_probeChecksOnceWhenOpened_thenNotBeforeTheOpenDuration() {
        AtomicInteger checks = new AtomicInteger();
        breaker = builder().openDuration(NEVER).healthCheck(() -> {
            checks.incrementAndGet();
            throw new QuotaStoreException("still down");
        }).build();
        store.down(true);
        failTimes(5);

        breaker.probe();
        breaker.probe();

        assertThat(checks).hasValue(1);
        assertThat(breaker.state()).isEqualTo(State.OPEN);
    }

    @Test
    void closedBreaker_aFailedCall_isNotAnOutage() {
        breaker = builder().build();
        store.down(true);

        assertThatThrownBy(() -> breaker.tryConsume(KEY, SPEC, 1)).isInstanceOfSatisfying(QuotaStoreException.class,
                e -> assertThat(e.outage()).isFalse());
        assertThat(breaker.outage()).isFalse();
    }

    @Test
    void openBreaker_beforeItsCheck_failsFastButIsNotAnOutage() {
        breaker = builder().openDuration(NEVER).healthCheck(() -> {
            throw new QuotaStoreException("still down");
        }).build();
        store.down(true);
        failTimes(5);

        assertThatThrownBy(() -> breaker.tryConsume(KEY, SPEC, 1)).isInstanceOfSatisfying(QuotaStoreException.class,
                e -> assertThat(e.outage()).isFalse());
        assertThat(store.calls()).isEqualTo(5);
    }

    @Test
    void openBreaker_whoseCheckFails_isAnEstablishedOutage() {
        breaker = builder().openDuration(NEVER).healthCheck(() -> {
            throw new QuotaStoreException("still down");
        }).build();
        store.down(true);
        failTimes(5);

        breaker.probe();

        assertThat(breaker.outage()).isTrue();
        assertThatThrownBy(() -> breaker.tryConsume(KEY, SPEC, 1)).isInstanceOfSatisfying(QuotaStoreException.class,
                e -> assertThat(e.outage()).isTrue());
    }

    /** What broke: five slow calls on a busy machine opened the breaker and the local fallback took over. */
    @Test
    void slowCallsOpenTheBreaker_butAPassingCheck_closesItAtOnce_withoutAnOutage() {
        AtomicInteger checks = new AtomicInteger();
        breaker = builder().openDuration(NEVER).healthCheck(checks::incrementAndGet).build();
        store.down(true);
        failTimes(5);
        store.down(false);

        breaker.probe();

        assertThat(checks).hasValue(1);
        assertThat(breaker.state()).isEqualTo(State.CLOSED);
        assertThat(breaker.outage()).isFalse();
        assertThat(breaker.tryConsume(KEY, SPEC, 1).tokensTaken()).isTrue();
    }

    @Test
    void withoutHealthCheck_aFailedTrial_establishesTheOutage() {
        breaker = builder().openDuration(SHORT).build();
        store.down(true);
        failTimes(5);
        assertThat(breaker.outage()).isFalse();

        Await.until(PATIENCE, () -> {
            try {
                breaker.tryConsume(KEY, SPEC, 1); // the trial, once the open duration passed
            } catch (QuotaStoreException e) {
                // failed as a trial or failed fast
            }
            return breaker.outage();
        }, () -> "a failed trial establishes the outage");
        assertThat(transitions).endsWith("HALF_OPEN->OPEN");
    }

    @Test
    void withHealthCheck_probeClosesAfterTheOpenDurationOnlyWhenTheCheckPasses() {
        AtomicBoolean healthy = new AtomicBoolean(false);
        AtomicInteger checks = new AtomicInteger();
        breaker = builder().openDuration(SHORT).healthCheck(() -> {
            checks.incrementAndGet();
            if (!healthy.get()) {
                throw new QuotaStoreException("still down");
            }
        }).build();
        store.down(true);
        failTimes(5);

        Await.until(PATIENCE, () -> {
            breaker.probe();
            return checks.get() > 0;
        }, () -> "a health check after the open duration");
        assertThat(breaker.state()).isEqualTo(State.OPEN);

        healthy.set(true);
        store.down(false);
        probeUntilClosed();
        assertThat(breaker.tryConsume(KEY, SPEC, 1).tokensTaken()).isTrue();
        assertThat(transitions).containsExactly("CLOSED->OPEN", "OPEN->CLOSED");
    }

    @Test
    void withHealthCheck_callsKeepFailingFastAfterOpenDuration_untilTheProbeCloses() {
        AtomicBoolean healthy = new AtomicBoolean(false);
        AtomicInteger checks = new AtomicInteger();
        breaker = builder().openDuration(SHORT).healthCheck(() -> {
            checks.incrementAndGet();
            if (!healthy.get()) {
                throw new QuotaStoreException("still down");
            }
        }).build();
        store.down(true);
        failTimes(5);
        store.down(false);
        // the probe has checked, so the open duration has passed: Failsafe alone would half-open now
        Await.until(PATIENCE, () -> {
            breaker.probe();
            return checks.get() > 0;
        }, () -> "a health check after the open duration");

        failTimes(3);
        assertThat(store.calls()).isEqualTo(5);
        assertThat(breaker.state()).isEqualTo(State.OPEN);

        healthy.set(true);
        probeUntilClosed();
        assertThat(breaker.tryConsume(KEY, SPEC, 1).tokensTaken()).isTrue();
        assertThat(transitions).containsExactly("CLOSED->OPEN", "OPEN->CLOSED");
    }

    @Test
    void afterClosing_needsFiveNewFailuresToOpenAgain() {
        breaker = builder().openDuration(SHORT).healthCheck(() -> { }).build();
        store.down(true);
        failTimes(5);
        probeUntilClosed();

        failTimes(4);
        assertThat(breaker.state()).isEqualTo(State.CLOSED);
        failTimes(1);
        assertThat(breaker.state()).isEqualTo(State.OPEN);
    }

    @Test
    void afterClosing_theFailureRateStartsOver() {
        breaker = builder().openDuration(SHORT).healthCheck(() -> { }).slidingWindowSize(4).failureRateThreshold(50)
                .build();
        store.down(true);
        failTimes(5);
        probeUntilClosed();

        // one failure in the last four calls: 25 %, unless the failures before closing still counted
        store.down(false);
        breaker.tryConsume(KEY, SPEC, 1);
        breaker.tryConsume(KEY, SPEC, 1);
        breaker.tryConsume(KEY, SPEC, 1);
        store.down(true);
        failTimes(1);

        assertThat(breaker.state()).isEqualTo(State.CLOSED);
    }

    @Test
    void withoutHealthCheck_beforeOpenDuration_callsFailFastWithoutATrial() {
        breaker = builder().openDuration(NEVER).build();
        store.down(true);
        failTimes(5);
        store.down(false);

        failTimes(3);

        assertThat(store.calls()).isEqualTo(5);
        assertThat(breaker.state()).isEqualTo(State.OPEN);
        assertThat(transitions).containsExactly("CLOSED->OPEN");
    }

    @Test
    void withoutHealthCheck_afterOpenDuration_aSuccessfulTrialCallCloses() {
        breaker = builder().openDuration(SHORT).build();
        store.down(true);
        failTimes(5);
        store.down(false);

        // fails fast until the open duration has passed; then the call is the trial, and succeeds
        Await.until(PATIENCE, () -> breaker.tryConsume(KEY, SPEC, 1).tokensTaken(), () -> "a successful trial");

        assertThat(store.calls()).isEqualTo(6);
        assertThat(breaker.state()).isEqualTo(State.CLOSED);
        assertThat(transitions).containsExactly("CLOSED->OPEN", "OPEN->HALF_OPEN", "HALF_OPEN->CLOSED");
    }

    @Test
    void withoutHealthCheck_aFailedTrialCallReopens() {
        breaker = builder().openDuration(SHORT).build();
        store.down(true);
        failTimes(5);

        Await.until(PATIENCE, () -> {
            failTimes(1);
            return store.calls() == 6;
        }, () -> "a trial call");

        assertThat(breaker.state()).isEqualTo(State.OPEN);
        assertThat(transitions).containsExactly("CLOSED->OPEN", "OPEN->HALF_OPEN", "HALF_OPEN->OPEN");
    }

    @Test
    void halfOpen_aTrialThatFailsWithAnotherException_reopensInsteadOfHoldingTheTrialForever() {
        breaker = builder().openDuration(SHORT).build();
        store.down(true);
        failTimes(5);
        store.down(false);

        // a bad argument reaches no bucket: it proves nothing about the store
        Await.until(PATIENCE, () -> {
            try {
                breaker.tryConsume(TWICE);
            } catch (QuotaStoreException failingFast) {
                return false;
            } catch (IllegalArgumentException badArgument) {
                return true;
            }
            throw new AssertionError("a consume naming a key twice was accepted");
        }, () -> "the trial with a bad argument");
        assertThat(transitions).containsExactly("CLOSED->OPEN", "OPEN->HALF_OPEN", "HALF_OPEN->OPEN");

        // and the next trial is let through
        Await.until(PATIENCE, () -> breaker.tryConsume(KEY, SPEC, 1).tokensTaken(), () -> "a successful trial");
        assertThat(breaker.state()).isEqualTo(State.CLOSED);
    }

    @Test
    void halfOpen_letsOneTrialThroughAndFailsTheOthersFast() throws Exception {
        breaker = builder().openDuration(SHORT).build();
        store.down(true);
        failTimes(5);
        store.down(false);
        store.hold();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<Boolean> trial = pool.submit(() -> Await.result(PATIENCE,
                    () -> breaker.tryConsume(KEY, SPEC, 1).tokensTaken(), () -> "the trial call"));
            Await.until(PATIENCE, () -> store.calls() == 6, () -> "the trial reaches the store and waits there");
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
        breaker = CircuitBreakerStore.builder(store).probeInterval(NEVER)
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
