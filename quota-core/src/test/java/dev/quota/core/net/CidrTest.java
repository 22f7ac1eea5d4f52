package dev.quota.core.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import org.junit.jupiter.api.Test;

class CidrTest {

    private static InetAddress ip(String text) {
        InetAddress address = ClientAddresses.parse(text);
        assertThat(address).as(text).isNotNull();
        return address;
    }

    @Test
    void parse_ipv4Range_containsExactlyItsAddresses() {
        Cidr cidr = Cidr.parse("10.0.0.0/8");

        assertThat(cidr.prefixLength()).isEqualTo(8);
        assertThat(cidr.toString()).isEqualTo("10.0.0.0/8");
        assertThat(cidr.contains(ip("10.0.0.0"))).isTrue();
        assertThat(cidr.contains(ip("10.255.255.255"))).isTrue();
        assertThat(cidr.contains(ip("11.0.0.0"))).isFalse();
        assertThat(cidr.contains(ip("9.255.255.255"))).isFalse();
        assertThat(Cidr.parse("192.0.2.128/25").contains(ip("192.0.2.127"))).isFalse();
        assertThat(Cidr.parse("192.0.2.128/25").contains(ip("192.0.2.200"))).isTrue();
    }

    @Test
    void parse_ipv6Range_containsItsAddressesAndNoIpv4() {
        Cidr cidr = Cidr.parse("2001:DB8::/32");

        assertThat(cidr.toString()).isEqualTo("2001:db8::/32");
        assertThat(cidr.contains(ip("2001:db8:ffff:1::1"))).isTrue();
        assertThat(cidr.contains(ip("2001:db9::1"))).isFalse();
        assertThat(cidr.contains(ip("10.0.0.1"))).isFalse();
        assertThat(Cidr.parse("10.0.0.0/8").contains(ip("2001:db8::1"))).isFalse();
    }

    @Test
    void parse_ipv4MappedIpv6Address_isTheIpv4Address() {
        assertThat(Cidr.parse("10.0.0.0/8").contains(ip("::ffff:10.9.8.7"))).isTrue();
    }

    @Test
    void parse_singleAddress_isAFullLengthRange() {
        assertThat(Cidr.parse("192.0.2.7")).isEqualTo(Cidr.parse("192.0.2.7/32"));
        assertThat(Cidr.parse("2001:db8::1").prefixLength()).isEqualTo(128);
    }

    @Test
    void parse_hostBitsSet_isRefusedWithTheLikelyMeaning() {
        assertThatThrownBy(() -> Cidr.parse("10.0.0.1/8")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("network 10.0.0.1/8 has bits set past the prefix (did you mean 10.0.0.0/8?)");
    }

    @Test
    void parse_badInput_isRefusedEchoingIt() {
        assertThatThrownBy(() -> Cidr.parse("10.0.0.0/33")).hasMessage("prefix length must be 0 to 32 but was 33");
        assertThatThrownBy(() -> Cidr.parse("2001:db8::/129")).hasMessage("prefix length must be 0 to 128 but was 129");
        assertThatThrownBy(() -> Cidr.parse("10.0.0.0/x")).hasMessage("prefix length must be a number from 0 to 32 but was \"x\"");
        assertThatThrownBy(() -> Cidr.parse("10.0.0.256/32")).hasMessageStartingWith("\"10.0.0.256/32\" is not an address");
        assertThatThrownBy(() -> Cidr.parse("localhost/8")).hasMessageStartingWith("\"localhost/8\" is not an address");
        assertThatThrownBy(() -> Cidr.parse("example.com")).hasMessageEndingWith("(host names are not resolved)");
        assertThatThrownBy(() -> Cidr.parse("fe80::1%eth0/64")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Cidr.parse("")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void prefixZero_containsEveryAddressOfItsFamily() {
        assertThat(Cidr.parse("0.0.0.0/0").contains(ip("203.0.113.7"))).isTrue();
        assertThat(Cidr.parse("::/0").contains(ip("203.0.113.7"))).isFalse();
    }
}
