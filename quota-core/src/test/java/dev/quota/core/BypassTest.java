package dev.quota.core;

import static dev.quota.core.Configs.config;
import static dev.quota.core.Configs.greedy;
import static dev.quota.core.Configs.operated;
import static dev.quota.core.Configs.plan;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.QuotaDecision.Outcome;
import dev.quota.core.net.Cidr;
import dev.quota.core.net.ClientAddresses;
import dev.quota.testkit.MutableClock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class BypassTest {

    private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
    private final SwitchableStore store = new SwitchableStore(clock);
    private final Customer alice = Customer.of("alice", "free");
    private final AmountLimits amounts = new AmountLimits("transfer-amount",
            List.of(greedy("daily", 1000, 1000, Duration.ofDays(1))), FailurePolicy.CLOSED);
    private final QuotaConfig base = config(List.of(plan("free", greedy("burst", 1, 1, Duration.ofHours(1)))),
            List.of(), List.of(amounts));

    private QuotaService service(QuotaConfig config) {
        return QuotaService.builder().store(store).config(config).clock(clock).build();
    }

    @Test
    void decide_whenDisabled_bypassesWithoutTouchingTheStore() {
        QuotaService service = service(operated(base, false, Mode.ENFORCE, AllowList.NONE));

        QuotaDecision first = service.decide(alice, null);
        QuotaDecision second = service.decide(alice, null);
        QuotaDecision amount = service.consumeAmount(alice, "transfer-amount", "EUR", 5000);
        service.refund(alice, null);
        service.refundAmount(alice, "transfer-amount", "EUR", 5000);

        assertThat(List.of(first, second, amount)).extracting(QuotaDecision::outcome).containsOnly(Outcome.BYPASSED);
        assertThat(first.allowed()).isTrue();
        assertThat(first.limits()).isEmpty();
        assertThat(first.violated()).isNull();
        assertThat(store.calls).hasValue(0);
    }

    @Test
    void decide_whenReEnabledByReload_limitsAgain() {
        QuotaService service = service(operated(base, false, Mode.ENFORCE, AllowList.NONE));
        service.decide(alice, null);

        service.reload(base);

        assertThat(service.decide(alice, null).outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(service.decide(alice, null).outcome()).isEqualTo(Outcome.REJECTED);
    }

    @Test
    void decide_forAllowListedCustomer_bypassesEvenOnAnUnknownPlan() {
        AllowList allow = new AllowList(Set.of("load-test"), Set.of(), List.of());
        QuotaService service = service(operated(base, true, Mode.ENFORCE, allow));
        Customer loadTest = Customer.of("load-test", "no-such-plan");

        for (int i = 0; i < 5; i++) {
            assertThat(service.decide(loadTest, null).outcome()).isEqualTo(Outcome.BYPASSED);
        }
        assertThat(service.consumeAmount(loadTest, "transfer-amount", "EUR", 5000).outcome()).isEqualTo(Outcome.BYPASSED);
        assertThat(store.calls).hasValue(0);
        assertThat(service.decide(alice, null).outcome()).isEqualTo(Outcome.ALLOWED);
    }

    @Test
    void isAllowListed_matchesCustomerIdKeyHashAndAddressRanges() {
        String keyHash = QuotaService.sha256Hex("internal-key");
        AllowList allow = new AllowList(Set.of("batch"), Set.of(keyHash.toUpperCase(java.util.Locale.ROOT)),
                List.of(Cidr.parse("10.0.0.0/8"), Cidr.parse("2001:db8::/32")));
        QuotaService service = service(operated(base, true, Mode.ENFORCE, allow));

        assertThat(service.isAllowListed("batch", null, null)).isTrue();
        assertThat(service.isAllowListed("alice", keyHash, null)).isTrue();
        assertThat(service.isAllowListed("alice", QuotaService.sha256Hex("other"), null)).isFalse();
        assertThat(service.isAllowListed(null, null, ClientAddresses.parse("10.20.30.40"))).isTrue();
        assertThat(service.isAllowListed(null, null, ClientAddresses.parse("11.0.0.1"))).isFalse();
        assertThat(service.isAllowListed(null, null, ClientAddresses.parse("2001:db8:ffff::1"))).isTrue();
        assertThat(service.isAllowListed(null, null, ClientAddresses.parse("2001:db9::1"))).isFalse();
        assertThat(service.isAllowListed(null, null, ClientAddresses.parse("::ffff:10.1.2.3"))).isTrue();
        assertThat(service.isAllowListed(null, null, null)).isFalse();
    }
}
