package dev.quota.core;

import static dev.quota.core.Configs.config;
import static dev.quota.core.Configs.daily;
import static dev.quota.core.Configs.greedy;
import static dev.quota.core.Configs.plan;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.QuotaDecision.Outcome;
import dev.quota.core.store.InMemoryStore;
import dev.quota.testkit.MutableClock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A decision whose amount is in the body, in two steps: the plan when the request arrives, the
 * rule and the amount once the body is read; together they take and refund what one decision does.
 */
class BodyDecisionTest {

    private static final Amount EUR_400 = new Amount("transfer-amount", "EUR", 400_00);

    private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
    private final Customer alice = Customer.of("alice", "free");
    private final QuotaService service = QuotaService.builder()
            .store(InMemoryStore.builder().clock(clock).build())
            .config(config(List.of(plan("free", greedy("burst", 3, 3, Duration.ofHours(1)))),
                    List.of(Rule.builder("transfers")
                            .perCustomer(List.of(greedy("per-hour", 2, 2, Duration.ofHours(1))))
                            .onStoreFailure(FailurePolicy.LOCAL).build()),
                    List.of(AmountLimits.of("transfer-amount", List.of(daily("daily", 1_000_00, "Europe/Berlin")),
                            FailurePolicy.CLOSED))))
            .clock(clock).build();

    private static long remaining(QuotaDecision decision, String policy) {
        return decision.limits().stream().filter(s -> s.policy().equals(policy)).findFirst().orElseThrow().remaining();
    }

    @Test
    void beforeBody_takesThePlanOnly_afterBody_theRuleAndAmount_andReportsAllLimits() {
        QuotaDecision arrived = service.decideBeforeBody(Caller.of(alice), "transfers");

        assertThat(arrived.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(arrived.limits()).extracting(LimitStatus::policy).containsExactly("free-burst");
        assertThat(remaining(arrived, "free-burst")).isEqualTo(2);

        QuotaDecision read = service.decideAfterBody(Caller.of(alice), "transfers", EUR_400, arrived);

        assertThat(read.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(read.limits()).extracting(LimitStatus::policy)
                .containsExactly("free-burst", "transfers-per-hour", "transfer-amount-daily");
        assertThat(remaining(read, "transfers-per-hour")).isEqualTo(1);
        assertThat(remaining(read, "transfer-amount-daily")).isEqualTo(600_00);
    }

    @Test
    void spentPlan_isRefusedBeforeTheBody() {
        for (int i = 0; i < 3; i++) {
            service.decideBeforeBody(Caller.of(alice), "transfers");
        }

        QuotaDecision refused = service.decideBeforeBody(Caller.of(alice), "transfers");

        assertThat(refused.outcome()).isEqualTo(Outcome.REJECTED);
        assertThat(refused.violated().policy()).isEqualTo("free-burst");
        assertThat(refused.retryAfter()).isEqualTo(Duration.ofMinutes(20));
    }

    @Test
    void refund_ofBothSteps_givesBackRuleAndAmountExactly_neverThePlan() {
        QuotaDecision read = service.decideAfterBody(Caller.of(alice), "transfers", EUR_400,
                service.decideBeforeBody(Caller.of(alice), "transfers"));

        service.refund(read);
        service.refund(read);

        QuotaDecision next = service.decide(Caller.of(alice), "transfers", new Amount("transfer-amount", "EUR", 1));
        assertThat(remaining(next, "free-burst")).isEqualTo(1);
        assertThat(remaining(next, "transfers-per-hour")).isEqualTo(1);
        assertThat(remaining(next, "transfer-amount-daily")).isEqualTo(1_000_00 - 1);
    }

    @Test
    void ruleRefusalAfterTheBody_leavesThePlanCharged_takesNoAmount() {
        for (int i = 0; i < 2; i++) {
            service.decide(Caller.of(alice), "transfers", null);
        }

        QuotaDecision read = service.decideAfterBody(Caller.of(alice), "transfers", EUR_400,
                service.decideBeforeBody(Caller.of(alice), "transfers"));

        assertThat(read.outcome()).isEqualTo(Outcome.REJECTED);
        assertThat(read.violated().policy()).isEqualTo("transfers-per-hour");
        assertThat(read.receipt().refundable()).isFalse();
        assertThat(remaining(read, "free-burst")).isZero();
        assertThat(service.admin().amountStanding(alice, "transfer-amount", "EUR").get(0).remaining())
                .isEqualTo(1_000_00);
    }
}
