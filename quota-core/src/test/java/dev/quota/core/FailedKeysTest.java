package dev.quota.core;

import static dev.quota.core.Configs.config;
import static dev.quota.core.Configs.greedy;
import static dev.quota.core.Configs.operated;
import static dev.quota.core.Configs.plan;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.QuotaDecision.Outcome;
import dev.quota.core.net.Cidr;
import dev.quota.core.store.InMemoryStore;
import dev.quota.testkit.MutableClock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FailedKeysTest {

    private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
    private final QuotaConfig base = config(plan("free", greedy("burst", 5, 1, Duration.ofHours(1))));

    private QuotaService service(QuotaConfig config) {
        return QuotaService.builder().store(InMemoryStore.builder().clock(clock).build()).config(config).clock(clock)
                .build();
    }

    private static QuotaConfig withIdentity(QuotaConfig base, Identity identity) {
        return new QuotaConfig(0, identity, base.plans(), base.rules(), base.amounts(), base.customers(),
                base.apiKeys(), base.warnings(), base.enabled(), base.mode(), base.allow());
    }

    @Test
    void recordFailedKey_allowsTenPerMinuteThenRejectsWithRetryAfter() {
        QuotaService service = service(base);
        for (int i = 0; i < 10; i++) {
            assertThat(service.recordFailedKey("203.0.113.7").outcome()).as("failure %d answers 401", i + 1)
                    .isEqualTo(Outcome.ALLOWED);
        }

        QuotaDecision eleventh = service.recordFailedKey("203.0.113.7");

        assertThat(eleventh.outcome()).isEqualTo(Outcome.REJECTED);
        assertThat(eleventh.violated().policy()).isEqualTo("identity-failed-keys");
        assertThat(eleventh.retryAfter()).isEqualTo(Duration.ofSeconds(6));
        assertThat(service.recordFailedKey("198.51.100.1").outcome()).isEqualTo(Outcome.ALLOWED);
    }

    @Test
    void peekFailedKeys_blocksARejectedAddressUntilItsRetryAfterWithoutCounting() {
        QuotaService service = service(base);
        assertThat(service.peekFailedKeys("203.0.113.7").outcome()).isEqualTo(Outcome.ALLOWED);
        for (int i = 0; i < 11; i++) {
            service.recordFailedKey("203.0.113.7");
        }

        clock.advance(Duration.ofSeconds(2));
        QuotaDecision blocked = service.peekFailedKeys("203.0.113.7");

        assertThat(blocked.outcome()).isEqualTo(Outcome.REJECTED);
        assertThat(blocked.retryAfter()).isEqualTo(Duration.ofSeconds(4));
        assertThat(blocked.violated().policy()).isEqualTo("identity-failed-keys");
        assertThat(service.peekFailedKeys("198.51.100.1").outcome()).isEqualTo(Outcome.ALLOWED);

        clock.advance(Duration.ofSeconds(4));
        assertThat(service.peekFailedKeys("203.0.113.7").outcome()).isEqualTo(Outcome.ALLOWED);
        // one token came back in 6 s: one more failure is a 401, the next a 429 again
        assertThat(service.recordFailedKey("203.0.113.7").outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(service.recordFailedKey("203.0.113.7").outcome()).isEqualTo(Outcome.REJECTED);
    }

    @Test
    void recordFailedKey_groupsIpv6ByConfiguredPrefix() {
        Identity identity = new Identity("X-API-Key", Identity.MissingKey.ANONYMOUS, "free", List.of(), 48, null,
                new Limit("failed-keys", 2, Refill.greedy(2, Duration.ofMinutes(1))));
        QuotaService service = service(withIdentity(base, identity));
        service.recordFailedKey("2001:db8:1:1::1");
        service.recordFailedKey("2001:db8:1:2::99");

        // same /48, another /64: still the same bucket
        assertThat(service.recordFailedKey("2001:db8:1:ffff::5").outcome()).isEqualTo(Outcome.REJECTED);
        assertThat(service.peekFailedKeys("2001:db8:1:abcd::1").outcome()).isEqualTo(Outcome.REJECTED);
        assertThat(service.recordFailedKey("2001:db8:2::1").outcome()).isEqualTo(Outcome.ALLOWED);
    }

    @Test
    void recordFailedKey_forAllowListedAddressOrDisabledConfig_isBypassed() {
        AllowList allow = new AllowList(Set.of(), Set.of(), List.of(Cidr.parse("10.0.0.0/8")));
        QuotaService service = service(operated(base, true, Mode.ENFORCE, allow));
        for (int i = 0; i < 20; i++) {
            assertThat(service.recordFailedKey("10.1.2.3").outcome()).isEqualTo(Outcome.BYPASSED);
        }

        service.reload(operated(base, false, Mode.ENFORCE, AllowList.NONE));

        for (int i = 0; i < 20; i++) {
            assertThat(service.recordFailedKey("203.0.113.7").outcome()).isEqualTo(Outcome.BYPASSED);
        }
        assertThat(service.peekFailedKeys("203.0.113.7").outcome()).isEqualTo(Outcome.BYPASSED);
    }

    @Test
    void recordFailedKey_inGlobalShadow_isShadowRejectedAndNotBlocked() {
        QuotaService service = service(operated(base, true, Mode.SHADOW, AllowList.NONE));
        for (int i = 0; i < 10; i++) {
            service.recordFailedKey("203.0.113.7");
        }

        QuotaDecision shadow = service.recordFailedKey("203.0.113.7");

        assertThat(shadow.outcome()).isEqualTo(Outcome.SHADOW_REJECTED);
        assertThat(shadow.allowed()).isTrue();
        assertThat(service.peekFailedKeys("203.0.113.7").outcome()).isEqualTo(Outcome.ALLOWED);
    }
}
