package dev.quota.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quota.core.net.Cidr;
import dev.quota.core.net.ClientAddresses;
import java.net.InetAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

class IdentityTest {

    private final Identity behindGateway = new Identity("X-API-Key", Identity.MissingKey.ANONYMOUS, "anonymous",
            List.of(Cidr.parse("10.0.0.0/8")), 64, "X-User-Id", Identity.DEFAULT_FAILED_KEYS);

    private static InetAddress ip(String text) {
        return ClientAddresses.parse(text);
    }

    @Test
    void defaults_trustNoProxyAndGroupIpv6By64() {
        Identity defaults = Identity.DEFAULT;

        assertThat(defaults.trustedProxies()).isEmpty();
        assertThat(defaults.ipv6Prefix()).isEqualTo(64);
        assertThat(defaults.userHeader()).isNull();
        assertThat(defaults.failedKeys().capacity()).isEqualTo(10);
        assertThat(defaults.anonymousCustomer(ip("10.0.0.5"), List.of("203.0.113.7"), "u-1"))
                .isEqualTo(Customer.of("ip:10.0.0.5", "anonymous"));
        assertThat(defaults.anonymousCustomer(ip("2001:db8:1:2::77"), List.of(), null))
                .isEqualTo(Customer.of("ip:2001:db8:1:2::/64", "anonymous"));
    }

    @Test
    void anonymousCustomer_behindTrustedProxy_isTheForwardedClient() {
        assertThat(behindGateway.anonymousCustomer(ip("10.0.0.5"), List.of("203.0.113.7"), null))
                .isEqualTo(Customer.of("ip:203.0.113.7", "anonymous"));
    }

    @Test
    void anonymousCustomer_userHeader_isBelievedOnlyFromATrustedProxy() {
        assertThat(behindGateway.anonymousCustomer(ip("10.0.0.5"), List.of("203.0.113.7"), "u-42"))
                .isEqualTo(Customer.of("user:u-42", "anonymous"));
        assertThat(behindGateway.anonymousCustomer(ip("203.0.113.7"), List.of(), "u-42"))
                .isEqualTo(Customer.of("ip:203.0.113.7", "anonymous"));
        assertThat(behindGateway.anonymousCustomer(ip("10.0.0.5"), List.of("203.0.113.7"), "bad\nid"))
                .isEqualTo(Customer.of("ip:203.0.113.7", "anonymous"));
        assertThat(behindGateway.anonymousCustomer(ip("10.0.0.5"), List.of("203.0.113.7"), "x".repeat(129)))
                .isEqualTo(Customer.of("ip:203.0.113.7", "anonymous"));
    }

    @Test
    void constructor_refusesBadSettings() {
        assertThatThrownBy(() -> new Identity("X-API-Key", Identity.MissingKey.ANONYMOUS, "anonymous", List.of(), 0,
                null, Identity.DEFAULT_FAILED_KEYS)).hasMessage("ipv6Prefix must be 1 to 128 but was 0");
        assertThatThrownBy(() -> new Identity("X-API-Key", Identity.MissingKey.ANONYMOUS, "anonymous", List.of(), 64,
                " ", Identity.DEFAULT_FAILED_KEYS)).hasMessage("identity userHeader must not be blank");
    }
}
