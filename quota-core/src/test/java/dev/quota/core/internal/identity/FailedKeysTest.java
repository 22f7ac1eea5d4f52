package dev.quota.core.internal.identity;

import static dev.quota.core.Configs.config;
import static dev.quota.core.Configs.greedy;
import static dev.quota.core.Configs.operated;
import static dev.quota.core.Configs.plan;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.AllowList;
import dev.quota.core.Caller;
import dev.quota.core.Caller.Kind;
import dev.quota.core.Credential;
import dev.quota.core.Customer;
import dev.quota.core.Identity;
import dev.quota.core.Limit;
import dev.quota.core.LimitStatus;
import dev.quota.core.Mode;
import dev.quota.core.QuotaConfig;
import dev.quota.core.QuotaDecision;
import dev.quota.core.QuotaDecision.Outcome;
import dev.quota.core.QuotaService;
import dev.quota.core.Refill;
import dev.quota.core.RequestFacts;
import dev.quota.core.config.ApiKeys;
import dev.quota.core.net.Cidr;
import dev.quota.core.net.ClientAddresses;
import dev.quota.core.store.InMemoryStore;
import dev.quota.testkit.MutableClock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Key guessing: counted per client address group, blocking new keys while known ones keep working. */
class FailedKeysTest {

    private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
    private final QuotaConfig base = config(plan("free", greedy("burst", 5, 1, Duration.ofHours(1))),
            plan("anonymous", greedy("burst", 5, 1, Duration.ofHours(1))))
            .toBuilder()
            .customer(Customer.of("acme", "free")).customer(Customer.of("globex", "free"))
            .apiKey(ApiKeys.sha256Hex("acme-key"), "acme")
            .apiKey(ApiKeys.sha256Hex("globex-key"), "globex")
            .build();

    private QuotaService service(QuotaConfig config) {
        return QuotaService.builder().store(InMemoryStore.builder().clock(clock).build()).config(config).clock(clock)
                .build();
    }

    private static Caller call(QuotaService service, String key, String address) {
        return service.identify(RequestFacts.of(Credential.apiKey(key), ClientAddresses.parse(address)));
    }

    private static QuotaConfig withIdentity(QuotaConfig config, Identity identity) {
        return config.toBuilder().identity(identity).build();
    }

    @Test
    void unknownKeys_tenPerMinuteAre401_theEleventhBlocksTheAddressWithRetryAfter() {
        QuotaService service = service(base);
        for (int i = 0; i < 10; i++) {
            assertThat(call(service, "guess-" + i, "203.0.113.7").kind()).as("guess %d", i + 1)
                    .isEqualTo(Kind.UNKNOWN_CREDENTIAL);
        }

        Caller eleventh = call(service, "guess-10", "203.0.113.7");

        assertThat(eleventh.kind()).isEqualTo(Kind.BLOCKED);
        assertThat(eleventh.refusal().violated().policy()).isEqualTo("identity-failed-keys");
        assertThat(eleventh.refusal().retryAfter()).isEqualTo(Duration.ofSeconds(6));
        assertThat(call(service, "guess-0", "198.51.100.1").kind()).isEqualTo(Kind.UNKNOWN_CREDENTIAL);
    }

    @Test
    void blockedAddress_keepsServingKeysThatWorkedFromIt_butNoNewKey_regressionForNatLockout() {
        QuotaService service = service(base);
        // a customer behind a shared NAT works normally, then a guesser behind the same NAT appears
        Caller acme = call(service, "acme-key", "203.0.113.7");
        assertThat(acme.kind()).isEqualTo(Kind.IDENTIFIED);
        assertThat(service.decide(acme, null, null).allowed()).isTrue();
        for (int i = 0; i < 11; i++) {
            call(service, "guess-" + i, "203.0.113.7");
        }

        assertThat(call(service, "acme-key", "203.0.113.7").kind()).as("known key").isEqualTo(Kind.IDENTIFIED);
        assertThat(call(service, "globex-key", "203.0.113.7").kind()).as("valid key new to this address")
                .isEqualTo(Kind.BLOCKED);
        assertThat(call(service, "guess-99", "203.0.113.7").kind()).isEqualTo(Kind.BLOCKED);
        assertThat(call(service, "globex-key", "198.51.100.1").kind()).as("another address").isEqualTo(Kind.IDENTIFIED);
    }

    @Test
    void blockedAddress_withNoKeys_refusesEveryKeyUntilTheBlockEnds() {
        Identity identity = Identity.builder().whileBlocked(Identity.WhileBlocked.NO_KEYS).build();
        QuotaService service = service(withIdentity(base, identity));
        service.decide(call(service, "acme-key", "203.0.113.7"), null, null);
        for (int i = 0; i < 11; i++) {
            call(service, "guess-" + i, "203.0.113.7");
        }

        clock.advance(Duration.ofSeconds(2));
        Caller blocked = call(service, "acme-key", "203.0.113.7");

        assertThat(blocked.kind()).isEqualTo(Kind.BLOCKED);
        assertThat(blocked.refusal().retryAfter()).isEqualTo(Duration.ofSeconds(4));
        clock.advance(Duration.ofSeconds(4));
        assertThat(call(service, "acme-key", "203.0.113.7").kind()).isEqualTo(Kind.IDENTIFIED);
        // one token came back in 6 s: one more guess is a 401, the next blocks again
        assertThat(call(service, "guess-x", "203.0.113.7").kind()).isEqualTo(Kind.UNKNOWN_CREDENTIAL);
        assertThat(call(service, "guess-y", "203.0.113.7").kind()).isEqualTo(Kind.BLOCKED);
    }

    @Test
    void ipv6_isGroupedByTheConfiguredPrefix() {
        Identity identity = Identity.builder().ipv6Prefix(48)
                .failedKeys(new Limit("failed-keys", 2, Refill.greedy(2, Duration.ofMinutes(1)))).build();
        QuotaService service = service(withIdentity(base, identity));
        call(service, "g1", "2001:db8:1:1::1");
        call(service, "g2", "2001:db8:1:2::99");

        // same /48, another /64: still the same bucket
        assertThat(call(service, "g3", "2001:db8:1:ffff::5").kind()).isEqualTo(Kind.BLOCKED);
        assertThat(call(service, "g4", "2001:db8:1:abcd::1").kind()).isEqualTo(Kind.BLOCKED);
        assertThat(call(service, "g5", "2001:db8:2::1").kind()).isEqualTo(Kind.UNKNOWN_CREDENTIAL);
    }

    @Test
    void nat64Clients_areCountedByTheirIpv4Address_notAsOneIpv6Network() {
        QuotaService service = service(base);
        for (int i = 0; i < 11; i++) {
            call(service, "guess-" + i, "64:ff9b::203.0.113.7");
        }

        assertThat(call(service, "guess-x", "64:ff9b::cb00:7107").kind()).as("the same client, hex form")
                .isEqualTo(Kind.BLOCKED);
        assertThat(call(service, "guess-x", "203.0.113.7").kind()).as("the same client over IPv4")
                .isEqualTo(Kind.BLOCKED);
        assertThat(call(service, "guess-x", "64:ff9b::198.51.100.1").kind()).as("another client of the gateway")
                .isEqualTo(Kind.UNKNOWN_CREDENTIAL);
    }

    @Test
    void allowListedAddressOrDisabledConfig_isNeverBlocked() {
        AllowList allow = new AllowList(java.util.Set.of(), java.util.Set.of(), List.of(Cidr.parse("10.0.0.0/8")));
        QuotaService service = service(operated(base, true, Mode.ENFORCE, allow));
        for (int i = 0; i < 20; i++) {
            assertThat(call(service, "guess-" + i, "10.1.2.3").kind()).isEqualTo(Kind.UNKNOWN_CREDENTIAL);
        }

        service.reload(operated(base, false, Mode.ENFORCE, AllowList.NONE));

        for (int i = 0; i < 20; i++) {
            assertThat(call(service, "guess-" + i, "203.0.113.7").kind()).isEqualTo(Kind.UNKNOWN_CREDENTIAL);
        }
    }

    @Test
    void inGlobalShadow_guessingIsLoggedNotBlocked() {
        QuotaService service = service(operated(base, true, Mode.SHADOW, AllowList.NONE));
        for (int i = 0; i < 30; i++) {
            assertThat(call(service, "guess-" + i, "203.0.113.7").kind()).isEqualTo(Kind.UNKNOWN_CREDENTIAL);
        }
    }

    @Test
    void fullBlockTable_evictsSomeBlocks_neverClearsThemAll_regressionForWholesaleUnblock() {
        FailedKeyGuard guard = new FailedKeyGuard(NOT_COUNTED, clock, 100);
        for (int i = 0; i < 150; i++) {
            guard.block("198.51." + (i / 250) + "." + (i % 250), QuotaDecision.builder(Outcome.REJECTED)
                    .violated(blockedStatus()).retryAfter(Duration.ofMinutes(1)).build());
        }

        int stillBlocked = 0;
        for (int i = 0; i < 150; i++) {
            if (guard.peek("198.51." + (i / 250) + "." + (i % 250)).outcome() == Outcome.REJECTED) {
                stillBlocked++;
            }
        }
        // the table holds 100: Caffeine evicts, on this thread, exactly what exceeds its bound
        assertThat(stillBlocked).isEqualTo(100);
    }

    /** Counts this test never asks for: blocks are put and peeked at in this JVM only. */
    private static final FailedKeyCounts NOT_COUNTED = new FailedKeyCounts() {
        @Override
        public QuotaDecision count(QuotaConfig config, String group) {
            throw new AssertionError("not counted in the store");
        }

        @Override
        public QuotaDecision exhausted(QuotaConfig config, String group) {
            throw new AssertionError("not read from the store");
        }
    };

    private static LimitStatus blockedStatus() {
        return LimitStatus.of("identity-failed-keys", Identity.DEFAULT_FAILED_KEYS, LimitStatus.Role.FAILED_KEYS, 0,
                Duration.ofMinutes(1), Duration.ofMinutes(1));
    }
}
