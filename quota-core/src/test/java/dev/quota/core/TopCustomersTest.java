package dev.quota.core;

import static dev.quota.core.Configs.config;
import static dev.quota.core.Configs.greedy;
import static dev.quota.core.Configs.plan;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.store.InMemoryStore;
import dev.quota.testkit.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class TopCustomersTest {

    private final MutableClock clock = MutableClock.at("2026-11-29T10:00:30Z");
    private final Rule export = Rule.builder("export").cost(10).build();
    private final QuotaService service = QuotaService.builder()
            .store(InMemoryStore.builder().clock(clock).build())
            .config(config(List.of(plan("free", greedy("burst", 20, 1, Duration.ofHours(1)))), List.of(export),
                    List.of()))
            .clock(clock)
            .build();
    private final Customer alice = Customer.of("alice", "free");
    private final Customer bob = Customer.of("bob", "free");

    @Test
    void topCustomers_ranksRefusalsAndPlanTokensSpent_fromTheServicesOwnDecisions() {
        service.decide(alice, "export");       // 10 tokens
        service.decide(alice, "export");       // 10 more: empty
        service.decide(alice, null);           // refused
        service.decide(alice, null);           // refused
        for (int i = 0; i < 3; i++) {
            service.decide(bob, null);         // 1 each
        }

        TopCustomers top = service.admin().topCustomers();

        assertThat(top.byRefusals()).containsExactly(new TopCustomers.Entry("alice", Customer.Kind.ACCOUNT, 2, 0));
        assertThat(top.bySpending()).containsExactly(
                new TopCustomers.Entry("alice", Customer.Kind.ACCOUNT, 20, 0),
                new TopCustomers.Entry("bob", Customer.Kind.ACCOUNT, 3, 0));
        assertThat(top.since()).isEqualTo(Instant.parse("2026-11-29T09:55:00Z"));
        assertThat(top.until()).isEqualTo(clock.instant());
        assertThat(service.admin().recentRefusals(alice).count()).isEqualTo(2);
        assertThat(service.admin().recentRefusals(bob).count()).isZero();
    }

    @Test
    void amountDecisionOnItsOwn_spendsNoPlanTokens_butItsRefusalCounts() {
        QuotaService withAmounts = QuotaService.builder()
                .store(InMemoryStore.builder().clock(clock).build())
                .config(config(List.of(plan("free", greedy("burst", 20, 1, Duration.ofHours(1)))), List.of(),
                        List.of(AmountLimits.of("moved", List.of(greedy("daily", 100, 100, Duration.ofDays(1))),
                                FailurePolicy.CLOSED))))
                .clock(clock)
                .build();

        withAmounts.consumeAmount(alice, new Amount("moved", "EUR", 60));
        withAmounts.consumeAmount(alice, new Amount("moved", "EUR", 60)); // refused: 40 left

        TopCustomers top = withAmounts.admin().topCustomers();
        assertThat(top.bySpending()).isEmpty();
        assertThat(top.byRefusals()).containsExactly(new TopCustomers.Entry("alice", Customer.Kind.ACCOUNT, 1, 0));
    }

    @Test
    void shadowRejection_ofAnEmptyPlan_spendsNothing_regressionForCountingTheRulesCost() {
        QuotaService shadow = QuotaService.builder()
                .store(InMemoryStore.builder().clock(clock).build())
                .config(Configs.operated(config(List.of(plan("free", greedy("burst", 20, 1, Duration.ofHours(1)))),
                        List.of(export), List.of()), true, Mode.SHADOW, AllowList.NONE))
                .clock(clock)
                .build();

        shadow.decide(alice, "export");                     // 10 tokens
        shadow.decide(alice, "export");                     // 10 more: empty
        QuotaDecision observed = shadow.decide(alice, "export"); // shadow-rejected: the plan gives nothing

        assertThat(observed.outcome()).isEqualTo(QuotaDecision.Outcome.SHADOW_REJECTED);
        assertThat(shadow.admin().topCustomers().bySpending())
                .containsExactly(new TopCustomers.Entry("alice", Customer.Kind.ACCOUNT, 20, 0));
    }

    @Test
    void decisionInTwoSteps_spendsThePlanTokensTakenBeforeTheBody_once() {
        Rule upload = Rule.builder("upload").cost(4).perCustomer(List.of(greedy("hourly", 5, 5, Duration.ofHours(1))))
                .build();
        QuotaService twoSteps = QuotaService.builder()
                .store(InMemoryStore.builder().clock(clock).build())
                .config(config(List.of(plan("free", greedy("burst", 20, 1, Duration.ofHours(1)))), List.of(upload),
                        List.of()))
                .clock(clock)
                .build();

        QuotaDecision arrived = twoSteps.decideBeforeBody(Caller.of(alice), "upload"); // 4 plan tokens
        QuotaDecision read = twoSteps.decideAfterBody(Caller.of(alice), "upload", null, arrived); // 1 rule token

        assertThat(read.outcome()).isEqualTo(QuotaDecision.Outcome.ALLOWED);
        assertThat(read.receipt().refundable()).isTrue();
        assertThat(twoSteps.admin().topCustomers().bySpending())
                .containsExactly(new TopCustomers.Entry("alice", Customer.Kind.ACCOUNT, 4, 0));
    }

    @Test
    void refusalsOlderThanTheWindow_areForgotten() {
        service.decide(alice, "export");
        service.decide(alice, "export");
        service.decide(alice, null);

        clock.advance(Duration.ofMinutes(6)); // 10:06:30: the minute of 10:00 has left the window

        assertThat(service.admin().topCustomers().byRefusals()).isEmpty();
        assertThat(service.admin().recentRefusals(alice).count()).isZero();
    }
}
