package dev.quota.core;

import static dev.quota.core.Configs.config;
import static dev.quota.core.Configs.greedy;
import static dev.quota.core.Configs.operated;
import static dev.quota.core.Configs.plan;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.QuotaDecision.Outcome;
import dev.quota.core.config.ApiKeys;
import dev.quota.core.net.Cidr;
import dev.quota.core.net.ClientAddresses;
import dev.quota.testkit.MutableClock;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class BypassTest {

    private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
    private final SwitchableStore store = new SwitchableStore(clock);
    private final Customer alice = Customer.of("alice", "free");
    private final AmountLimits amounts = AmountLimits.of("transfer-amount",
            List.of(greedy("daily", 1000, 1000, Duration.ofDays(1))), FailurePolicy.CLOSED);
    private final QuotaConfig base = config(List.of(plan("free", greedy("burst", 1, 1, Duration.ofHours(1))),
            plan("anonymous", greedy("burst", 1, 1, Duration.ofHours(1)))), List.of(), List.of(amounts));

    private QuotaService service(QuotaConfig config) {
        return QuotaService.builder().store(store).config(config).clock(clock).build();
    }

    @Test
    void decide_whenDisabled_bypassesWithoutTouchingTheStore() {
        QuotaService service = service(operated(base, false, Mode.ENFORCE, AllowList.NONE));

        QuotaDecision first = service.decide(alice, null);
        QuotaDecision second = service.decide(alice, null);
        QuotaDecision amount = service.consumeAmount(alice, new Amount("transfer-amount", "EUR", 5000));
        service.refund(first);
        service.refund(amount);

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
        assertThat(service.consumeAmount(loadTest, new Amount("transfer-amount", "EUR", 5000)).outcome())
                .isEqualTo(Outcome.BYPASSED);
        assertThat(store.calls).hasValue(0);
        assertThat(service.decide(alice, null).outcome()).isEqualTo(Outcome.ALLOWED);
    }

    @Test
    void identify_marksCallersExemptByCustomerIdKeyHashAndAddressRanges() {
        String internalKey = ApiKeys.sha256Hex("internal-key");
        QuotaConfig withKeys = base.toBuilder()
                .customer(Customer.of("batch", "free")).customer(alice)
                .apiKey(ApiKeys.sha256Hex("batch-key"), "batch")
                .apiKey(internalKey, "alice")
                .apiKey(ApiKeys.sha256Hex("alice-key"), "alice")
                .allow(new AllowList(Set.of("batch"), Set.of(internalKey.toUpperCase(java.util.Locale.ROOT)),
                        List.of(Cidr.parse("10.0.0.0/8"), Cidr.parse("2001:db8::/32"))))
                .build();
        QuotaService service = service(withKeys);
        InetAddress outside = ClientAddresses.parse("11.0.0.1");

        assertThat(identify(service, Credential.apiKey("batch-key"), outside).exempt()).isTrue();
        assertThat(identify(service, Credential.apiKey("internal-key"), outside).exempt()).isTrue();
        assertThat(identify(service, Credential.apiKey("alice-key"), outside).exempt()).isFalse();
        assertThat(identify(service, Credential.none(), ClientAddresses.parse("10.20.30.40")).exempt()).isTrue();
        assertThat(identify(service, Credential.none(), outside).exempt()).isFalse();
        assertThat(identify(service, Credential.none(), ClientAddresses.parse("2001:db8:ffff::1")).exempt()).isTrue();
        assertThat(identify(service, Credential.none(), ClientAddresses.parse("2001:db9::1")).exempt()).isFalse();
        assertThat(identify(service, Credential.none(), ClientAddresses.parse("::ffff:10.1.2.3")).exempt()).isTrue();
        assertThat(service.decide(identify(service, Credential.apiKey("internal-key"), outside), null, null).outcome())
                .isEqualTo(Outcome.BYPASSED);
        // the exempt ones cost nothing; alice's key, new at that address, one read of its failed-key count
        assertThat(store.calls).hasValue(1);
    }

    @Test
    void identify_doesNotExemptAnAnonymousCallerNamedLikeAnAllowListedCustomer() {
        AllowList allow = new AllowList(Set.of("ip:203.0.113.7"), Set.of(), List.of());
        QuotaService service = service(operated(base, true, Mode.ENFORCE, allow));

        Caller anonymous = identify(service, Credential.none(), ClientAddresses.parse("203.0.113.7"));

        assertThat(anonymous.customer().id()).isEqualTo("ip:203.0.113.7");
        assertThat(anonymous.exempt()).isFalse();
        assertThat(service.decide(anonymous, null, null).outcome()).isNotEqualTo(Outcome.BYPASSED);
    }

    private static Caller identify(QuotaService service, Credential credential, InetAddress peer) {
        return service.identify(RequestFacts.of(credential, peer));
    }
}
