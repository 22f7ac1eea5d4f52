package dev.quota.core;

import static dev.quota.core.Configs.config;
import static dev.quota.core.Configs.daily;
import static dev.quota.core.Configs.greedy;
import static dev.quota.core.Configs.plan;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.QuotaDecision.Outcome;
import dev.quota.core.spi.Adjustment;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.Take;
import dev.quota.core.store.InMemoryStore;
import dev.quota.testkit.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A decision is a receipt: a refund gives back exactly what it took, to the buckets and store it
 * took it from, once. Each case here went to the wrong bucket when refunds were recomputed from the
 * config and the clock at refund time.
 */
class ReceiptTest {

    private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
    private final Customer alice = Customer.of("alice", "free");
    private final AmountLimits amounts = AmountLimits.of("transfer-amount",
            List.of(daily("daily", 1_000_00, "Europe/Berlin")), FailurePolicy.CLOSED);

    private QuotaConfig withPerHour(long perHour) {
        Rule rule = Rule.builder("transfers")
                .perCustomer(List.of(greedy("per-hour", perHour, perHour, Duration.ofHours(1))))
                .onStoreFailure(FailurePolicy.LOCAL).build();
        return config(List.of(plan("free", greedy("burst", 100, 100, Duration.ofHours(1)))), List.of(rule),
                List.of(amounts));
    }

    private QuotaService service(SwitchableStore store) {
        return QuotaService.builder().store(store).config(withPerHour(10)).clock(clock).build();
    }

    private static long remaining(QuotaDecision decision, String policy) {
        return decision.limits().stream().filter(s -> s.policy().equals(policy)).findFirst().orElseThrow().remaining();
    }

    @Test
    void refund_givesBackRuleAndAmountButNeverThePlansRequestToken() {
        QuotaService service = service(new SwitchableStore(clock));
        QuotaDecision transfer = service.decide(Caller.of(alice), "transfers", new Amount("transfer-amount", "EUR", 400_00));

        service.refund(transfer);

        QuotaDecision next = service.decide(Caller.of(alice), "transfers", new Amount("transfer-amount", "EUR", 1));
        assertThat(remaining(next, "free-burst")).isEqualTo(98);
        assertThat(remaining(next, "transfers-per-hour")).isEqualTo(9);
        assertThat(remaining(next, "transfer-amount-daily")).isEqualTo(1_000_00 - 1);
    }

    /**
     * A receipt's close (a refund or a settle, once) and its leases' release (once) are one field:
     * each happens once, in any order, and neither undoes the other.
     */
    @Test
    void closeAndRelease_eachOnce_inEitherOrder() {
        InMemoryStore store = InMemoryStore.builder().clock(clock).build();
        Limit limit = greedy("burst", 10, 10, Duration.ofHours(1));
        Take take = Take.of(new BucketKey("receipt-test"), BucketSpec.of(List.of(limit), 1), 1);
        Adjustment lease = Adjustment.leaseRelease(new BucketKey("receipt-test:l"),
                BucketSpec.leases("in-flight", 2, Duration.ofMinutes(1), 1), 42);

        Receipt refunded = new Receipt(store, List.of(take), 1, List.of(take), List.of(lease));
        assertThat(refunded.release()).isTrue();
        assertThat(refunded.release()).isFalse();
        assertThat(refunded.holdsLeases()).isFalse();
        assertThat(refunded.refundable()).isTrue();
        assertThat(refunded.spend()).isTrue();
        assertThat(refunded.spend()).isFalse();
        assertThat(refunded.settle()).isEqualTo(Settlement.Outcome.REFUNDED);
        assertThat(refunded.leaseStore()).isSameAs(store);
        assertThat(refunded.planStore()).isSameAs(store);
        assertThat(refunded).hasToString("Receipt[1 refundable buckets, refunded, 1 leases given back]");

        Receipt settled = new Receipt(store, List.of(), 1, List.of(take), List.of(lease));
        assertThat(settled.settle()).isNull();
        assertThat(settled.settle()).isEqualTo(Settlement.Outcome.ALREADY_SETTLED);
        assertThat(settled.spend()).isFalse();
        assertThat(settled.holdsLeases()).isTrue();
        assertThat(settled.release()).isTrue();
        assertThat(settled.holdsLeases()).isFalse();
        assertThat(settled.settleable()).isFalse();
        assertThat(settled).hasToString("Receipt[0 refundable buckets, settled, 1 leases given back]");
    }

    @Test
    void refund_twice_givesBackOnce() {
        QuotaService service = service(new SwitchableStore(clock));
        QuotaDecision transfer = service.decide(Caller.of(alice), "transfers", new Amount("transfer-amount", "EUR", 400_00));
        service.decide(Caller.of(alice), "transfers", new Amount("transfer-amount", "EUR", 400_00));

        service.refund(transfer);
        service.refund(transfer);

        QuotaDecision next = service.decide(Caller.of(alice), "transfers", new Amount("transfer-amount", "EUR", 1));
        assertThat(transfer.receipt().refundable()).isFalse();
        assertThat(remaining(next, "transfers-per-hour")).isEqualTo(8);
        assertThat(remaining(next, "transfer-amount-daily")).isEqualTo(1_000_00 - 400_00 - 1);
    }

    @Test
    void refund_acrossMidnight_goesToTheDayThatWasCharged_notToTheNewDay() {
        clock.set(Instant.parse("2026-11-29T22:59:59.900Z")); // 23:59:59.9 in Berlin
        QuotaService service = service(new SwitchableStore(clock));
        QuotaDecision lateTransfer = service.decide(Caller.of(alice), "transfers",
                new Amount("transfer-amount", "EUR", 600_00));
        clock.advance(Duration.ofMillis(200)); // 00:00:00.1: a new day, a new bucket

        service.refund(lateTransfer);

        // the new day starts full and stays full: the refund did not raise it above anything
        QuotaDecision morning = service.decide(Caller.of(alice), "transfers", new Amount("transfer-amount", "EUR", 1_000_00));
        assertThat(morning.outcome()).isEqualTo(Outcome.ALLOWED);
        QuotaDecision more = service.decide(Caller.of(alice), "transfers", new Amount("transfer-amount", "EUR", 1));
        assertThat(more.outcome()).as("the refund did not credit the new day").isEqualTo(Outcome.REJECTED);
        assertThat(more.violated().policy()).isEqualTo("transfer-amount-daily");
    }

    @Test
    void refund_afterAReload_goesToTheBucketsThatWereCharged() {
        QuotaService service = service(new SwitchableStore(clock));
        for (int i = 0; i < 9; i++) {
            service.decide(Caller.of(alice), "transfers", null);
        }
        QuotaDecision tenth = service.decide(Caller.of(alice), "transfers", null);
        // the operator halves the rule: the stored bucket keeps its usage (10 of 10 used, now of 5)
        service.reload(withPerHour(5));

        service.refund(tenth);

        QuotaDecision next = service.decide(Caller.of(alice), "transfers", null);
        assertThat(next.outcome()).as("one token came back to the bucket it was taken from").isEqualTo(Outcome.ALLOWED);
        assertThat(service.decide(Caller.of(alice), "transfers", null).outcome()).isEqualTo(Outcome.REJECTED);
    }

    @Test
    void refund_ofADecisionTheFallbackMade_goesToTheFallback_notToTheRecoveredStore() {
        SwitchableStore store = new SwitchableStore(clock);
        InMemoryStore fallback = InMemoryStore.builder().clock(clock).build();
        QuotaService service = QuotaService.builder().store(store).fallback(fallback).config(withPerHour(10)).clock(clock)
                .build();
        store.failing = true;
        QuotaDecision local = service.decide(Caller.of(alice), "transfers", null); // the local policy answered
        store.failing = false;
        int callsBefore = store.calls.get();

        service.refund(local);

        assertThat(local.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(store.calls.get()).as("nothing was given to the shared store").isEqualTo(callsBefore);
        assertThat(service.decide(Caller.of(alice), "transfers", null).limits())
                .as("the shared store never saw the fallback's token").extracting(LimitStatus::remaining)
                .containsExactly(99L, 9L);
    }

    @Test
    void rejectedDecision_hasNothingToRefund() {
        QuotaService service = service(new SwitchableStore(clock));
        QuotaDecision over = service.decide(Caller.of(alice), "transfers", new Amount("transfer-amount", "EUR", 2_000_00));

        assertThat(over.outcome()).isEqualTo(Outcome.EXCEEDS_LIMIT);
        assertThat(over.retryAfter()).isZero();
        assertThat(over.receipt().refundable()).isFalse();
    }
}
