package dev.quota.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class AwaitTest {

    private static final Duration LONG = Duration.ofSeconds(10);

    @Test
    void until_returnsOnTheFirstPollThatHolds() {
        AtomicInteger polls = new AtomicInteger();

        Await.until(LONG, () -> polls.incrementAndGet() == 3, () -> "the third poll");

        assertThat(polls).hasValue(3);
    }

    @Test
    void until_conditionThatNeverHolds_timesOutSayingWhatItAwaited() {
        AtomicInteger polls = new AtomicInteger();

        assertThatThrownBy(() -> Await.until(Duration.ofMillis(120), () -> polls.incrementAndGet() < 0,
                () -> "a negative count"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("timed out after PT0.12S waiting for a negative count")
                .hasNoCause();
        // asked at once, and again after each 50 ms pause until the deadline has passed
        assertThat(polls.get()).isGreaterThanOrEqualTo(2);
    }

    @Test
    void until_runtimeExceptionMeansNotYet_andTheLastOneIsTheCauseOfTheTimeout() {
        AtomicInteger polls = new AtomicInteger();

        Await.until(LONG, () -> {
            if (polls.incrementAndGet() < 3) {
                throw new UncheckedIOException(new ConnectException("Connection refused"));
            }
            return true;
        }, () -> "a connection");
        assertThat(polls).hasValue(3);

        assertThatThrownBy(() -> Await.until(Duration.ZERO, () -> {
            throw new UncheckedIOException(new ConnectException("Connection refused"));
        }, () -> "a connection"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("waiting for a connection; last error: java.io.UncheckedIOException")
                .hasRootCauseInstanceOf(ConnectException.class);
    }

    @Test
    void until_illegalStateExceptionEndsTheWaitAtOnce() {
        AtomicInteger polls = new AtomicInteger();
        IllegalStateException died = new IllegalStateException("redis-server exited with 1");

        assertThatThrownBy(() -> Await.until(LONG, () -> {
            polls.incrementAndGet();
            throw died;
        }, () -> "a PONG")).isSameAs(died);
        assertThat(polls).hasValue(1);
    }

    @Test
    void result_returnsTheFirstNonNullAnswer() {
        AtomicInteger polls = new AtomicInteger();

        String master = Await.result(LONG, () -> polls.incrementAndGet() < 4 ? null : "127.0.0.1:7002",
                () -> "a master");

        assertThat(master).isEqualTo("127.0.0.1:7002");
        assertThat(polls).hasValue(4);
    }

    @Test
    void result_withNegativeTimeout_throws() {
        assertThatThrownBy(() -> Await.result(Duration.ofSeconds(-1), () -> "x", () -> "x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("timeout must be >= 0 but was PT-1S");
    }
}
