package dev.quota.core;

import static dev.quota.core.Configs.config;
import static dev.quota.core.Configs.greedy;
import static dev.quota.core.Configs.plan;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quota.core.config.ApiKeys;
import dev.quota.core.net.Cidr;
import dev.quota.core.net.ClientAddresses;
import dev.quota.core.store.InMemoryStore;
import dev.quota.testkit.MutableClock;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Who a request is counted as: anonymous callers by address or gateway user, namespaces kept apart. */
class IdentityTest {

    private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
    private final Identity behindGateway = Identity.builder().trustedProxies(List.of(Cidr.parse("10.0.0.0/8")))
            .userHeader("X-User-Id").build();
    private final QuotaConfig base = config(plan("anonymous", greedy("burst", 5, 1, Duration.ofHours(1))),
            plan("enterprise", greedy("burst", 5, 1, Duration.ofHours(1))));

    private QuotaService service(QuotaConfig config) {
        return QuotaService.builder().store(InMemoryStore.builder().clock(clock).build()).config(config).clock(clock)
                .build();
    }

    private static InetAddress ip(String text) {
        return ClientAddresses.parse(text);
    }

    private static Customer anonymous(QuotaService service, String peer, List<String> forwardedFor,
                                      String endUser) {
        return service.identify(RequestFacts.builder(Credential.none(), ip(peer)).forwardedFor(forwardedFor)
                .endUser(endUser).build()).customer();
    }

    @Test
    void defaults_trustNoProxyAndGroupIpv6By64() {
        QuotaService service = service(base);

        assertThat(Identity.DEFAULT.trustedProxies()).isEmpty();
        assertThat(Identity.DEFAULT.failedKeys().capacity()).isEqualTo(10);
        assertThat(anonymous(service, "10.0.0.5", List.of("203.0.113.7"), "u-1"))
                .isEqualTo(Customer.builder("ip:10.0.0.5", "anonymous").kind(Customer.Kind.ADDRESS).build());
        assertThat(anonymous(service, "2001:db8:1:2::77", List.of(), null))
                .isEqualTo(Customer.builder("ip:2001:db8:1:2::/64", "anonymous").kind(Customer.Kind.ADDRESS).build());
    }

    @Test
    void anonymousCaller_behindTrustedProxy_isTheForwardedClient() {
        QuotaService service = service(base.toBuilder().identity(behindGateway).build());

        assertThat(anonymous(service, "10.0.0.5", List.of("203.0.113.7"), null).id()).isEqualTo("ip:203.0.113.7");
    }

    @Test
    void endUserHeader_isBelievedOnlyFromATrustedProxy() {
        QuotaService service = service(base.toBuilder().identity(behindGateway).build());

        assertThat(anonymous(service, "10.0.0.5", List.of("203.0.113.7"), "u-42"))
                .isEqualTo(Customer.builder("user:u-42", "anonymous").kind(Customer.Kind.GATEWAY_USER).build());
        assertThat(anonymous(service, "203.0.113.7", List.of(), "u-42").id()).isEqualTo("ip:203.0.113.7");
        assertThat(anonymous(service, "10.0.0.5", List.of("203.0.113.7"), "bad\nid").id()).isEqualTo("ip:203.0.113.7");
        assertThat(anonymous(service, "10.0.0.5", List.of("203.0.113.7"), "x".repeat(129)).id())
                .isEqualTo("ip:203.0.113.7");
    }

    @Test
    void anonymousCaller_withoutAnAddress_isRefused_neverASharedBucket() {
        QuotaService service = service(base);

        assertThatThrownBy(() -> service.identify(RequestFacts.of(Credential.none(), null)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no client address");
    }

    @Test
    void configuredCustomerNamedLikeAnAddress_doesNotShareTheAnonymousBucket_regressionForNamespaceCollision() {
        QuotaConfig config = base.toBuilder()
                .customer(Customer.of("ip:198.51.100.7", "enterprise"))
                .apiKey(ApiKeys.sha256Hex("enterprise-key"), "ip:198.51.100.7")
                .build();
        QuotaService service = service(config);
        Caller passerBy = service.identify(RequestFacts.of(Credential.none(), ip("198.51.100.7")));
        for (int i = 0; i < 5; i++) {
            assertThat(service.decide(passerBy, null, null).allowed()).isTrue();
        }

        Caller enterprise = service.identify(RequestFacts.of(Credential.apiKey("enterprise-key"), ip("192.0.2.1")));

        assertThat(enterprise.customer().id()).isEqualTo(passerBy.customer().id());
        assertThat(service.admin().standing(enterprise.customer())).extracting(LimitStatus::remaining).containsExactly(5L);
        assertThat(service.decide(enterprise, null, null).allowed()).isTrue();
    }

    @Test
    void principalUnknownToTheDirectory_isCountedOnThePrincipalPlan_apartFromAConfiguredUserId() {
        Identity principals = Identity.builder().principalPlan("enterprise").build();
        QuotaConfig config = base.toBuilder().identity(principals)
                .customer(Customer.of("user:alice", "enterprise"))
                .apiKey(ApiKeys.sha256Hex("alice-key"), "user:alice").build();
        QuotaService service = service(config);

        Caller principal = service.identify(RequestFacts.of(Credential.principal("alice"), ip("192.0.2.1")));
        Caller keyHolder = service.identify(RequestFacts.of(Credential.apiKey("alice-key"), ip("192.0.2.1")));
        for (int i = 0; i < 5; i++) {
            service.decide(principal, null, null);
        }

        assertThat(principal.customer()).isEqualTo(Customer.builder("user:alice", "enterprise")
                .kind(Customer.Kind.PRINCIPAL).build());
        assertThat(service.decide(principal, null, null).allowed()).isFalse();
        assertThat(service.decide(keyHolder, null, null).allowed()).isTrue();
    }

    @Test
    void build_refusesBadSettings() {
        assertThatThrownBy(() -> Identity.builder().ipv6Prefix(0).build())
                .hasMessage("ipv6Prefix must be 1 to 128 but was 0");
        assertThatThrownBy(() -> Identity.builder().userHeader(" ").build())
                .hasMessage("identity userHeader must not be blank");
    }

    @Test
    void group_isEachIdentitysOwn_evenForTheSameAddressAskedAgain() throws Exception {
        InetAddress v6 = InetAddress.getByName("2001:db8:1:2:3:4:5:6");
        InetAddress v4 = InetAddress.getByName("203.0.113.7");
        Identity by64 = Identity.builder().build();
        Identity by48 = Identity.builder().ipv6Prefix(48).build();

        for (int i = 0; i < 2; i++) { // the second time from each identity's recent groups
            assertThat(by64.group(v6)).isEqualTo("2001:db8:1:2::/64");
            assertThat(by48.group(v6)).isEqualTo("2001:db8:1::/48");
            assertThat(by64.group(v4)).isEqualTo("203.0.113.7");
            assertThat(by48.group(InetAddress.getByName("203.0.113.7"))).isEqualTo("203.0.113.7");
        }
    }
}
