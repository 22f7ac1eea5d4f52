package dev.quota.core;

import static dev.quota.core.Configs.config;
import static dev.quota.core.Configs.greedy;
import static dev.quota.core.Configs.operated;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.QuotaDecision.Outcome;
import dev.quota.core.store.InMemoryStore;
import dev.quota.testkit.MutableClock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ShadowModeTest {

    private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
    private final Customer alice = Customer.of("alice", "free");

    private QuotaService service(QuotaConfig config) {
        return QuotaService.builder().store(InMemoryStore.builder().clock(clock).build()).config(config).clock(clock)
                .build();
    }

    private static Plan free(Mode mode, Limit... limits) {
        return Plan.builder("free").limits(List.of(limits)).onStoreFailure(FailurePolicy.LOCAL).mode(mode).build();
    }

    private static Rule transfers(Mode mode, long perMinute) {
        return Rule.builder("transfers").perCustomer(List.of(greedy("per-minute", perMinute, perMinute,
                Duration.ofMinutes(1)))).mode(mode).build();
    }

    private static QuotaConfig withRule(Plan plan, Rule rule, Mode global) {
        return operated(config(List.of(plan), List.of(rule), List.of()), true, global, AllowList.NONE);
    }

    @Test
    void decide_inGlobalShadow_whenBurstExhausted_letsThroughNamingLimitAndRetryAfter() {
        QuotaService service = service(operated(config(free(null, greedy("burst", 2, 10, Duration.ofSeconds(1)))),
                true, Mode.SHADOW, AllowList.NONE));
        service.decide(alice, null);
        service.decide(alice, null);

        QuotaDecision shadow = service.decide(alice, null);

        assertThat(shadow.outcome()).isEqualTo(Outcome.SHADOW_REJECTED);
        assertThat(shadow.allowed()).isTrue();
        assertThat(shadow.violated().policy()).isEqualTo("free-burst");
        assertThat(shadow.violated().remaining()).isZero();
        assertThat(shadow.retryAfter()).isEqualTo(Duration.ofMillis(100));
    }

    @Test
    void decide_inGlobalShadow_whenRuleWouldReject_givesPlanTokensBack() {
        QuotaService service = service(withRule(free(null, greedy("burst", 20, 1, Duration.ofHours(1))),
                transfers(null, 2), Mode.SHADOW));
        service.decide(alice, "transfers");
        service.decide(alice, "transfers");

        QuotaDecision shadow = service.decide(alice, "transfers");

        assertThat(shadow.outcome()).isEqualTo(Outcome.SHADOW_REJECTED);
        assertThat(shadow.violated().policy()).isEqualTo("transfers-per-minute");
        assertThat(shadow.retryAfter()).isEqualTo(Duration.ofSeconds(30));
        // as if enforced: two admitted requests used 2 plan tokens, the shadow-rejected one none
        assertThat(service.decide(alice, null).limits().get(0).remaining()).isEqualTo(17);
    }

    @Test
    void decide_withRuleInShadow_shadowRejectsOnItsLimitButEnforcesThePlan() {
        QuotaService service = service(withRule(free(null, greedy("burst", 3, 1, Duration.ofHours(1))),
                transfers(Mode.SHADOW, 1), Mode.ENFORCE));

        assertThat(service.decide(alice, "transfers").outcome()).isEqualTo(Outcome.ALLOWED);
        QuotaDecision second = service.decide(alice, "transfers");
        QuotaDecision third = service.decide(alice, "transfers");
        QuotaDecision fourth = service.decide(alice, "transfers");

        assertThat(second.outcome()).isEqualTo(Outcome.SHADOW_REJECTED);
        assertThat(second.violated().policy()).isEqualTo("transfers-per-minute");
        // the request is served, so the enforced plan keeps its token: 3, 2, 1 left after the first three
        assertThat(third.outcome()).isEqualTo(Outcome.SHADOW_REJECTED);
        assertThat(third.limits().get(0).remaining()).isZero();
        assertThat(fourth.outcome()).isEqualTo(Outcome.REJECTED);
        assertThat(fourth.violated().policy()).isEqualTo("free-burst");
    }

    @Test
    void decide_withPlanInShadowRunDry_stillEnforcesTheRule() {
        // Regression guard: a shadow plan that lacks tokens must not let requests past an enforced rule.
        QuotaService service = service(withRule(free(Mode.SHADOW, greedy("burst", 1, 1, Duration.ofHours(1))),
                transfers(Mode.ENFORCE, 2), Mode.ENFORCE));
        assertThat(service.decide(alice, "transfers").outcome()).isEqualTo(Outcome.ALLOWED);

        QuotaDecision second = service.decide(alice, "transfers");
        QuotaDecision third = service.decide(alice, "transfers");

        assertThat(second.outcome()).isEqualTo(Outcome.SHADOW_REJECTED);
        assertThat(second.violated().policy()).isEqualTo("free-burst");
        assertThat(third.outcome()).isEqualTo(Outcome.REJECTED);
        assertThat(third.violated().policy()).isEqualTo("transfers-per-minute");
    }

    @Test
    void decide_withPlanEnforcedUnderGlobalShadow_rejects() {
        QuotaService service = service(operated(config(free(Mode.ENFORCE, greedy("burst", 1, 1, Duration.ofHours(1)))),
                true, Mode.SHADOW, AllowList.NONE));
        service.decide(alice, null);

        assertThat(service.decide(alice, null).outcome()).isEqualTo(Outcome.REJECTED);
    }

    @Test
    void reload_switchingRuleFromShadowToEnforce_rejectsFromTheNextRequestKeepingUsage() {
        Plan plan = free(null, greedy("burst", 20, 1, Duration.ofHours(1)));
        QuotaService service = service(withRule(plan, transfers(Mode.SHADOW, 2), Mode.ENFORCE));
        service.decide(alice, "transfers");
        service.decide(alice, "transfers");
        assertThat(service.decide(alice, "transfers").outcome()).isEqualTo(Outcome.SHADOW_REJECTED);

        service.reload(withRule(plan, transfers(Mode.ENFORCE, 2), Mode.ENFORCE));

        QuotaDecision enforced = service.decide(alice, "transfers");
        assertThat(enforced.outcome()).isEqualTo(Outcome.REJECTED);
        assertThat(enforced.allowed()).isFalse();
        assertThat(enforced.violated().policy()).isEqualTo("transfers-per-minute");

        service.reload(withRule(plan, transfers(Mode.SHADOW, 2), Mode.ENFORCE));
        assertThat(service.decide(alice, "transfers").outcome()).isEqualTo(Outcome.SHADOW_REJECTED);
    }

    @Test
    void consumeAmount_inGlobalShadow_isShadowRejectedAndTakesNothing() {
        AmountLimits amounts = AmountLimits.of("transfer-amount",
                List.of(greedy("daily", 1000, 1000, Duration.ofDays(1))), FailurePolicy.CLOSED);
        QuotaService service = service(operated(config(List.of(free(null, greedy("burst", 5, 1, Duration.ofHours(1)))),
                List.of(), List.of(amounts)), true, Mode.SHADOW, AllowList.NONE));
        service.consumeAmount(alice, new Amount("transfer-amount", "EUR", 900));

        QuotaDecision shadow = service.consumeAmount(alice, new Amount("transfer-amount", "EUR", 200));

        assertThat(shadow.outcome()).isEqualTo(Outcome.SHADOW_REJECTED);
        assertThat(shadow.violated().policy()).isEqualTo("transfer-amount-daily");
        assertThat(service.consumeAmount(alice, new Amount("transfer-amount", "EUR", 100)).outcome()).isEqualTo(Outcome.ALLOWED);
    }
}
