package dev.quota.core.internal.identity;

import static dev.quota.core.Configs.config;
import static dev.quota.core.Configs.greedy;
import static dev.quota.core.Configs.plan;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Caller;
import dev.quota.core.Caller.Kind;
import dev.quota.core.Credential;
import dev.quota.core.Customer;
import dev.quota.core.QuotaConfig;
import dev.quota.core.QuotaService;
import dev.quota.core.RequestFacts;
import dev.quota.core.config.ApiKeys;
import dev.quota.core.net.ClientAddresses;
import dev.quota.core.store.InMemoryStore;
import dev.quota.testkit.MutableClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The keys that keep working from a blocked address: flooded from elsewhere, a NAT's own keys stay;
 * a refused request makes no key known; a block set by another instance holds here too.
 */
class KnownKeysFloodTest {

    private static final String NAT = "203.0.113.7";

    private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
    private final QuotaConfig config = config(plan("free", greedy("burst", 5, 1, Duration.ofHours(1))),
            plan("anonymous", greedy("burst", 5, 1, Duration.ofHours(1))))
            .toBuilder()
            .customer(Customer.of("acme", "free")).customer(Customer.of("globex", "free"))
            .customer(Customer.of("initech", "free")).customer(Customer.of("spent", "free"))
            .apiKey(ApiKeys.sha256Hex("acme-key"), "acme")
            .apiKey(ApiKeys.sha256Hex("globex-key"), "globex")
            .apiKey(ApiKeys.sha256Hex("initech-key"), "initech")
            .apiKey(ApiKeys.sha256Hex("spent-key"), "spent")
            .build();

    private QuotaService service(InMemoryStore store) {
        return QuotaService.builder().store(store).config(config).clock(clock).build();
    }

    private static Caller call(QuotaService service, String key, String address) {
        return service.identify(RequestFacts.of(Credential.apiKey(key), ClientAddresses.parse(address)));
    }

    private static void guessUntilBlocked(QuotaService service, String address) {
        for (int i = 0; i < 11; i++) {
            call(service, "guess-" + i, address);
        }
    }

    @Test
    void exhaustedKeyFrom130kAddresses_leavesTheKeysOfANat_regressionForKnownKeysFlood() {
        QuotaService service = service(InMemoryStore.builder().clock(clock).build());
        // colleagues behind a NAT: one key used once, one three times
        assertThat(service.decide(call(service, "acme-key", NAT), null, null).allowed()).isTrue();
        for (int i = 0; i < 3; i++) {
            assertThat(service.decide(call(service, "globex-key", NAT), null, null).allowed()).isTrue();
        }
        // one valid key, spent, from 130,000 addresses, four requests each
        for (int i = 0; i < 5; i++) {
            service.decide(call(service, "spent-key", "198.18.0.1"), null, null);
        }
        for (int a = 0; a < 130_000; a++) {
            String address = "10." + (a >> 16) + "." + ((a >> 8) & 255) + "." + (a & 255);
            for (int r = 0; r < 4; r++) {
                assertThat(service.decide(call(service, "spent-key", address), null, null).allowed()).isFalse();
            }
        }

        guessUntilBlocked(service, NAT);

        assertThat(call(service, "acme-key", NAT).kind()).as("used once").isEqualTo(Kind.IDENTIFIED);
        assertThat(call(service, "globex-key", NAT).kind()).as("used three times").isEqualTo(Kind.IDENTIFIED);
        assertThat(call(service, "initech-key", NAT).kind()).as("never used there").isEqualTo(Kind.BLOCKED);
    }

    @Test
    void refusedRequest_doesNotMakeItsKeyKnown() {
        QuotaService service = service(InMemoryStore.builder().clock(clock).build());
        for (int i = 0; i < 5; i++) {
            service.decide(call(service, "spent-key", "198.18.0.1"), null, null);
        }
        assertThat(service.decide(call(service, "spent-key", NAT), null, null).allowed()).isFalse();

        guessUntilBlocked(service, NAT);

        assertThat(call(service, "spent-key", NAT).kind()).isEqualTo(Kind.BLOCKED);
    }

    @Test
    void oneKeyAdmittedFromManyGroups_isKnownInTheSixteenMostRecent() {
        KnownKeys known = new KnownKeys(clock);
        for (int g = 0; g < 20; g++) {
            known.admitted("198.51.100." + g, "k");
        }

        int knownIn = 0;
        for (int g = 0; g < 20; g++) {
            knownIn += known.knownAt("198.51.100." + g, "k") ? 1 : 0;
        }
        assertThat(knownIn).isEqualTo(KnownKeys.GROUPS_PER_KEY);
        assertThat(known.knownAt("198.51.100.3", "k")).isFalse();
        assertThat(known.knownAt("198.51.100.19", "k")).isTrue();
    }

    @Test
    void aGroupKeepsItsTenThousandMostRecentKeys() {
        KnownKeys known = new KnownKeys(clock);
        for (int k = 0; k <= KnownKeys.KEYS_PER_GROUP; k++) {
            known.admitted(NAT, "key-" + k);
            clock.advance(Duration.ofMillis(1));
        }

        assertThat(known.knownAt(NAT, "key-0")).isFalse();
        assertThat(known.knownAt(NAT, "key-1")).isTrue();
        assertThat(known.knownAt(NAT, "key-" + KnownKeys.KEYS_PER_GROUP)).isTrue();
    }

    @Test
    void knownKey_isForgottenAfter24HoursWithoutAnAdmittedRequest() {
        KnownKeys known = new KnownKeys(clock);
        known.admitted(NAT, "k");
        clock.advance(Duration.ofHours(24).minusSeconds(1));
        assertThat(known.knownAt(NAT, "k")).isTrue();
        clock.advance(Duration.ofSeconds(1));
        assertThat(known.knownAt(NAT, "k")).isFalse();
    }

    @Test
    void addressBlockedByAnotherInstance_isBlockedHereForKeysNewToIt_regressionForInstanceHopping() {
        InMemoryStore shared = InMemoryStore.builder().clock(clock).build();
        QuotaService first = service(shared);
        QuotaService second = service(shared);
        assertThat(second.decide(call(second, "acme-key", NAT), null, null).allowed()).isTrue();

        guessUntilBlocked(first, NAT);
        // the second instance took the address as unblocked a moment ago, and asks again after a second
        clock.advance(FailedKeyGuard.SHARED_CHECK_EVERY);

        Caller hopped = call(second, "globex-key", NAT);
        assertThat(hopped.kind()).isEqualTo(Kind.BLOCKED);
        assertThat(hopped.refusal().violated().policy()).isEqualTo("identity-failed-keys");
        assertThat(hopped.refusal().retryAfter()).isEqualTo(Duration.ofSeconds(5));
        assertThat(call(second, "acme-key", NAT).kind()).as("known there").isEqualTo(Kind.IDENTIFIED);
        assertThat(call(second, "globex-key", "198.51.100.1").kind()).as("another address")
                .isEqualTo(Kind.IDENTIFIED);
        clock.advance(Duration.ofSeconds(5).minusNanos(1));
        assertThat(call(second, "globex-key", NAT).kind()).isEqualTo(Kind.BLOCKED);
        clock.advance(Duration.ofNanos(1));
        assertThat(call(second, "globex-key", NAT).kind()).isEqualTo(Kind.IDENTIFIED);
    }

    /**
     * What broke: the shared count was read in whole tokens, so an address blocked on another
     * instance was told to wait up to one whole refill (6 s of the default 10 per minute) when its
     * next failed key was fractions of that away.
     */
    @Test
    void blockSeenFromAnotherInstance_endsWhenTheCountHasATokenAgain_regressionForWholeTokenRetryAfter() {
        InMemoryStore shared = InMemoryStore.builder().clock(clock).build();
        QuotaService first = service(shared);
        QuotaService second = service(shared);
        guessUntilBlocked(first, NAT);
        clock.advance(Duration.ofMillis(5_750));

        Caller hopped = call(second, "globex-key", NAT);

        assertThat(hopped.kind()).isEqualTo(Kind.BLOCKED);
        assertThat(hopped.refusal().retryAfter()).isEqualTo(Duration.ofMillis(250));
        assertThat(hopped.refusal().violated().retryAfter()).isEqualTo(Duration.ofMillis(250));
        assertThat(hopped.refusal().violated().resetAfter()).isEqualTo(Duration.ofMillis(54_250));
        clock.advance(Duration.ofMillis(250));
        assertThat(call(second, "globex-key", NAT).kind()).isEqualTo(Kind.IDENTIFIED);
    }
}
