package dev.quota.core;

import static dev.quota.core.Configs.config;
import static dev.quota.core.Configs.daily;
import static dev.quota.core.Configs.greedy;
import static dev.quota.core.Configs.plan;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quota.core.store.InMemoryStore;
import dev.quota.testkit.MutableClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A settle changes the plan charge a decision's receipt names to the actual cost: in every plan
 * bucket it charged (a daily limit beside the burst), in the store that charged it, in one store
 * call, once. The store contract ({@code QuotaStoreContract}) checks the figures on every store.
 */
class SettleTest {

    private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
    private final Customer carol = Customer.of("carol", "metered");
    private final SwitchableStore store = new SwitchableStore(clock);
    private final InMemoryStore fallback = InMemoryStore.builder().clock(clock).build();
    private final List<Settlement> told = new ArrayList<>();
    private final QuotaService service = QuotaService.builder().store(store).fallback(fallback).clock(clock)
            .config(config(List.of(plan("metered", greedy("burst", 100, 100, Duration.ofHours(1)),
                            daily("daily", 1_000, "Europe/Berlin"))),
                    List.of(Rule.builder("export").cost(10).onStoreFailure(FailurePolicy.LOCAL).build()), List.of()))
            .listener(new QuotaListener() {
                @Override
                public void onSettle(Settlement settlement) {
                    told.add(settlement);
                }
            })
            .build();

    private static long remaining(QuotaDecision decision, String policy) {
        return decision.limits().stream().filter(s -> s.policy().equals(policy)).findFirst().orElseThrow().remaining();
    }

    @Test
    void settle_changesEveryPlanBucketTheDecisionCharged_inOneStoreCall() {
        QuotaDecision export = service.decide(carol, "export");
        int before = store.calls.get();

        Settlement settlement = service.settle(export, 37);

        assertThat(store.calls.get() - before).isEqualTo(1);
        assertThat(settlement).isEqualTo(new Settlement(Settlement.Outcome.CHARGED, 10, 37, 27));
        assertThat(told).containsExactly(settlement);
        QuotaDecision next = service.decide(carol, null);
        assertThat(remaining(next, "metered-burst")).isEqualTo(100 - 37 - 1);
        assertThat(remaining(next, "metered-daily")).isEqualTo(1_000 - 37 - 1);
    }

    @Test
    void topSpending_countsWhatASettleChargedAfterTheFact_andKeepsAGiveBackAsCounted() {
        service.settle(service.decide(carol, "export"), 37);
        service.settle(service.decide(carol, "export"), 4);

        // 37 settled up from 10, then 10 settled down to 4: the give-back is not taken off, so the
        // count (47) is never below what carol spent (41)
        assertThat(service.admin().topCustomers().bySpending())
                .containsExactly(new TopCustomers.Entry("carol", Customer.Kind.ACCOUNT, 47, 0));
    }

    @Test
    void settle_atTheEstimate_callsNoStore() {
        QuotaDecision export = service.decide(carol, "export");
        int before = store.calls.get();

        assertThat(service.settle(export, 10).outcome()).isEqualTo(Settlement.Outcome.EXACT);
        assertThat(store.calls.get()).isEqualTo(before);
    }

    @Test
    void settle_ofARefusedDecision_hasNothingToSettle() {
        for (int i = 0; i < 10; i++) {
            service.decide(carol, "export");
        }
        QuotaDecision refused = service.decide(carol, "export");

        assertThat(refused.allowed()).isFalse();
        assertThat(service.settle(refused, 0).outcome()).isEqualTo(Settlement.Outcome.NOTHING_TO_SETTLE);
    }

    @Test
    void settle_ofADecisionTheFallbackMade_goesToTheFallback_notToTheStoreThatCameBack() {
        store.failing = true;
        QuotaDecision export = service.decide(carol, "export");
        store.failing = false;

        assertThat(service.settle(export, 37).outcome()).isEqualTo(Settlement.Outcome.CHARGED);

        assertThat(remaining(service.decide(carol, null), "metered-burst")).isEqualTo(99);
        store.failing = true;
        assertThat(remaining(service.decide(carol, null), "metered-burst")).isEqualTo(100 - 37 - 1);
    }

    @Test
    void settle_whenTheStoreFails_saysSo_andThrowsNothing() {
        QuotaDecision export = service.decide(carol, "export");
        store.failing = true;

        Settlement settlement = service.settle(export, 37);

        assertThat(settlement).isEqualTo(new Settlement(Settlement.Outcome.FAILED, 10, 37, 0));
        assertThat(told).containsExactly(settlement);
    }

    @Test
    void settle_ofANegativeCost_isRefused() {
        QuotaDecision export = service.decide(carol, "export");

        assertThatThrownBy(() -> service.settle(export, -1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("actual cost must be >= 0 but was -1");
        assertThat(export.receipt().settleable()).isTrue();
    }
}
