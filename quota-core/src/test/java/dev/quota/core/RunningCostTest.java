package dev.quota.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.store.InMemoryStore;
import dev.quota.testkit.MutableClock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The bound a stream keeps, exactly, on the in-JVM store with a frozen clock: a stream that asks
 * before every token is cut where its customer has nothing left plus the debt cap, whatever the
 * batch; what it paid and did not use goes back.
 */
class RunningCostTest {

    private final MutableClock clock = MutableClock.at("2026-12-01T10:00:00Z");

    private QuotaService service(long capacity, Streams streams) {
        QuotaConfig config = QuotaConfig.builder()
                .plan(Plan.of("p", List.of(new Limit("hourly", capacity, Refill.interval(capacity, Duration.ofHours(1)))),
                        FailurePolicy.CLOSED))
                .rule(Rule.builder("statement").cost(10).build())
                .customer(Customer.of("c", "p")).streams(streams).build();
        return QuotaService.builder().store(InMemoryStore.builder().clock(clock).build()).config(config).clock(clock)
                .build();
    }

    /** Writes rows one by one, asking before each one whether there is room for it. */
    private static long stream(RunningCost cost, long wanted) {
        long rows = 0;
        while (rows < wanted && cost.cover(rows + 1)) {
            rows++;
        }
        cost.finish(rows);
        return rows;
    }

    private static long remaining(QuotaService service) {
        return service.admin().standing(Customer.of("c", "p")).get(0).remaining();
    }

    @Test
    void batch_isATwentiethOfTheSmallestCapacity_between1AndMaxBatch() {
        assertThat(Streams.DEFAULT.batch(500)).isEqualTo(25);
        assertThat(Streams.DEFAULT.batch(10)).isEqualTo(1);
        assertThat(Streams.DEFAULT.batch(1_000_000)).isEqualTo(1_000);
        assertThat(new Streams(7, 0).batch(500)).isEqualTo(7);
    }

    @Test
    void streamsOfEveryLength_onEveryCapacity_areCutExactlyAtWhatWasLeftPlusTheDebtCap() {
        for (long capacity : new long[] {10, 19, 20, 21, 500, 997, 25_000}) {
            for (long debtCap : new long[] {0, 1, 7}) {
                try (QuotaService service = service(capacity, new Streams(1_000, debtCap))) {
                    QuotaDecision decision = service.decide(Customer.of("c", "p"), "statement");
                    long rows = stream(service.runningCost(decision), Long.MAX_VALUE);

                    assertThat(rows).as("capacity %d, debt cap %d", capacity, debtCap).isEqualTo(capacity + debtCap);
                    clock.advance(Duration.ofHours(1)); // the hour's refill pays the debt first
                    assertThat(remaining(service)).isEqualTo(capacity - debtCap);
                }
            }
        }
    }

    @Test
    void shortStream_paysExactlyItsRows_theUnusedBatchGoesBack() {
        try (QuotaService service = service(500, Streams.DEFAULT)) {
            QuotaDecision decision = service.decide(Customer.of("c", "p"), "statement");
            RunningCost cost = service.runningCost(decision);

            assertThat(stream(cost, 12)).isEqualTo(12);
            assertThat(cost.paid()).isEqualTo(10 + 25);
            assertThat(remaining(service)).isEqualTo(500 - 12);
        }
    }

    @Test
    void afterTheCut_coverAnswersFalse_withoutDrawingAgain() {
        try (QuotaService service = service(100, Streams.DEFAULT)) {
            RunningCost cost = service.runningCost(service.decide(Customer.of("c", "p"), "statement"));

            assertThat(cost.cover(100)).isTrue();
            assertThat(cost.cover(101)).isFalse();
            clock.advance(Duration.ofHours(1)); // refilled, but a cut stream stays cut
            assertThat(cost.cover(101)).isFalse();
            assertThat(cost.covered()).isEqualTo(100);
        }
    }

    @Test
    void decisionThatChargedNoPlan_coversEverything() {
        try (QuotaService service = service(100, Streams.DEFAULT)) {
            RunningCost cost = service.runningCost(QuotaDecision.bypassed());

            assertThat(cost.cover(1_000_000)).isTrue();
            assertThat(cost.finish(1_000_000).outcome()).isEqualTo(Settlement.Outcome.NOTHING_TO_SETTLE);
        }
    }
}
