package dev.quota.core.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

class ClientAddressesTest {

    private static final List<Cidr> PROXIES = List.of(Cidr.parse("10.0.0.0/8"), Cidr.parse("fd00::/8"));

    private static InetAddress ip(String text) {
        InetAddress address = ClientAddresses.parse(text);
        assertThat(address).as(text).isNotNull();
        return address;
    }

    @Test
    void parse_acceptsOnlyLiterals() {
        assertThat(ClientAddresses.parse("203.0.113.7")).isEqualTo(ip("203.0.113.7"));
        assertThat(ClientAddresses.format(ip("2001:0DB8:0000:0000:0000:0000:0000:0001"))).isEqualTo("2001:db8::1");
        assertThat(ClientAddresses.parse("localhost")).isNull();
        assertThat(ClientAddresses.parse("10.1")).isNull();
        assertThat(ClientAddresses.parse("010.0.0.1")).isNull();
        assertThat(ClientAddresses.parse("256.0.0.1")).isNull();
        assertThat(ClientAddresses.parse("203.0.113.7:80")).isNull();
        assertThat(ClientAddresses.parse("fe80::1%eth0")).isNull();
        assertThat(ClientAddresses.parse("2001:db8::g")).isNull();
        assertThat(ClientAddresses.parse("::")).isNotNull();
        assertThat(ClientAddresses.parse("")).isNull();
    }

    @Test
    void format_followsRfc5952() {
        assertThat(ClientAddresses.format(ip("2001:db8:0:0:1:0:0:1"))).isEqualTo("2001:db8::1:0:0:1");
        assertThat(ClientAddresses.format(ip("2001:db8:0:1:1:1:1:1"))).isEqualTo("2001:db8:0:1:1:1:1:1");
        assertThat(ClientAddresses.format(ip("::"))).isEqualTo("::");
        assertThat(ClientAddresses.format(ip("::1"))).isEqualTo("::1");
        assertThat(ClientAddresses.format(ip("1::"))).isEqualTo("1::");
    }

    @Test
    void forwardedClient_fromUntrustedPeer_ignoresTheHeader() {
        InetAddress client = ClientAddresses.forwardedClient(ip("203.0.113.7"), List.of("198.51.100.1"), PROXIES);

        assertThat(client).isEqualTo(ip("203.0.113.7"));
    }

    @Test
    void forwardedClient_withoutTrustedProxies_ignoresTheHeader() {
        assertThat(ClientAddresses.forwardedClient(ip("10.0.0.5"), List.of("198.51.100.1"), List.of()))
                .isEqualTo(ip("10.0.0.5"));
    }

    @Test
    void forwardedClient_fromTrustedPeer_takesTheRightmostUntrustedHop() {
        InetAddress client = ClientAddresses.forwardedClient(ip("10.0.0.5"),
                List.of("198.51.100.9, 203.0.113.7", "10.0.0.9"), PROXIES);

        assertThat(client).isEqualTo(ip("203.0.113.7"));
    }

    @Test
    void forwardedClient_withPortsAndBrackets_readsTheAddress() {
        assertThat(ClientAddresses.forwardedClient(ip("10.0.0.5"), List.of("203.0.113.7:4711"), PROXIES))
                .isEqualTo(ip("203.0.113.7"));
        assertThat(ClientAddresses.forwardedClient(ip("fd00::5"), List.of("[2001:db8::1]:443"), PROXIES))
                .isEqualTo(ip("2001:db8::1"));
    }

    @Test
    void forwardedClient_withGarbageHop_stopsAtTheLastTrustedHop() {
        assertThat(ClientAddresses.forwardedClient(ip("10.0.0.5"), List.of("203.0.113.7, unknown, 10.0.0.9"), PROXIES))
                .isEqualTo(ip("10.0.0.9"));
    }

    @Test
    void forwardedClient_whenEveryHopIsTrusted_takesTheLeftmost() {
        assertThat(ClientAddresses.forwardedClient(ip("10.0.0.5"), List.of("10.1.1.1, 10.2.2.2"), PROXIES))
                .isEqualTo(ip("10.1.1.1"));
    }

    @Test
    void group_ipv4AsIs_ipv6ByPrefix() {
        assertThat(ClientAddresses.group(ip("203.0.113.7"), 64)).isEqualTo("203.0.113.7");
        assertThat(ClientAddresses.group(ip("2001:db8:1:2:aaaa:bbbb:cccc:dddd"), 64)).isEqualTo("2001:db8:1:2::/64");
        assertThat(ClientAddresses.group(ip("2001:db8:1:2:aaaa::1"), 56)).isEqualTo("2001:db8:1::/56");
        assertThat(ClientAddresses.group(ip("2001:db8::1"), 128)).isEqualTo("2001:db8::1");
        assertThatThrownBy(() -> ClientAddresses.group(ip("2001:db8::1"), 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
