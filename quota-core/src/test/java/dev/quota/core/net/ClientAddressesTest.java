package dev.quota.core.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
    void parse_ipv4ReadByHand_acceptsExactlyWhatTheStrictFourOctetRuleAccepts() {
        // the rule the hand-written reader replaced: four groups of 1 to 3 ASCII digits, each 0 to 255,
        // none with a leading zero; the inputs put these pieces where a literal's octets go, so that
        // each way a literal can be off (digits, length, separators, non-ASCII digits) is tried
        String octet = "(0|[1-9][0-9]{0,2})";
        Pattern rule = Pattern.compile(octet + "\\." + octet + "\\." + octet + "\\." + octet);
        String[] pieces = {"0", "1", "9", "00", "01", "10", "99", "255", "256", "299", "1000", ".", "..", "a", " ",
            "\u0661", ":", "-"};
        List<String> inputs = new ArrayList<>();
        for (String a : pieces) {
            for (String b : pieces) {
                for (String c : pieces) {
                    inputs.add(a + "." + b + "." + c + ".7");
                    inputs.add("203." + a + b + "." + c + ".1");
                    inputs.add(a + b + c);
                }
            }
        }
        inputs.addAll(List.of("255.255.255.255", "0.0.0.0", "1.2.3.4.", ".1.2.3.4", "1.2.3.4.5", "1.2.3", "1.2.3.04",
                "1.2.3.-4", "1.2.3.+4", "1.2.3.4 ", "１.2.3.4"));
        for (String input : inputs) {
            Matcher m = rule.matcher(input);
            boolean valid = m.matches() && Integer.parseInt(m.group(1)) <= 255 && Integer.parseInt(m.group(2)) <= 255
                    && Integer.parseInt(m.group(3)) <= 255 && Integer.parseInt(m.group(4)) <= 255;
            byte[] read = ClientAddresses.ipv4(input);
            assertThat(read != null).as(input).isEqualTo(valid);
            if (valid) {
                assertThat(ClientAddresses.format(ip(input))).as(input).isEqualTo(input);
            }
        }
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
