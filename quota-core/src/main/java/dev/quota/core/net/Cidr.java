package dev.quota.core.net;

import java.net.InetAddress;
import java.util.Arrays;
import java.util.Objects;

/**
 * A range of IPv4 or IPv6 addresses: a network address and a prefix length.
 *
 * <p>{@code 10.0.0.0/8} holds the 16,777,216 addresses from {@code 10.0.0.0} to
 * {@code 10.255.255.255}; {@code 2001:db8::/32} every address starting with {@code 2001:0db8}. An
 * IPv4 range never contains an IPv6 address and the other way round; an IPv4-mapped IPv6 address
 * ({@code ::ffff:10.1.2.3}) is read as the IPv4 address it carries.
 *
 * @param network      the first address of the range; its bits past the prefix are zero
 * @param prefixLength the number of leading bits that are fixed: 0 to 32 for IPv4, 0 to 128 for IPv6
 */
public record Cidr(InetAddress network, int prefixLength) {

    /**
     * @throws IllegalArgumentException if the prefix length is out of range for the address family,
     *                                  or the network has bits set past the prefix ({@code 10.0.0.1/8})
     */
    public Cidr {
        Objects.requireNonNull(network, "network");
        int bits = network.getAddress().length * 8;
        if (prefixLength < 0 || prefixLength > bits) {
            throw new IllegalArgumentException("prefix length must be 0 to " + bits + " but was " + prefixLength);
        }
        byte[] masked = ClientAddresses.mask(network.getAddress(), prefixLength);
        if (!Arrays.equals(masked, network.getAddress())) {
            throw new IllegalArgumentException("network " + ClientAddresses.format(network) + "/" + prefixLength
                    + " has bits set past the prefix (did you mean " + ClientAddresses.format(masked) + "/"
                    + prefixLength + "?)");
        }
    }

    /**
     * Parses {@code 10.0.0.0/8}, {@code 2001:db8::/32}, or a single address ({@code 192.0.2.7} is
     * {@code 192.0.2.7/32}, {@code 2001:db8::1} is {@code /128}). Only literals: a host name is
     * an error, never a DNS lookup.
     *
     * @throws IllegalArgumentException if the text is not an address literal with an optional
     *                                  {@code /prefix}, echoing it
     */
    public static Cidr parse(String text) {
        Objects.requireNonNull(text, "text");
        int slash = text.indexOf('/');
        String addressText = slash < 0 ? text : text.substring(0, slash);
        InetAddress address = ClientAddresses.parse(addressText);
        if (address == null) {
            throw new IllegalArgumentException("\"" + shorten(text) + "\" is not an address or range such as"
                    + " 10.0.0.0/8 or 2001:db8::/32 (host names are not resolved)");
        }
        int bits = address.getAddress().length * 8;
        if (slash < 0) {
            return new Cidr(address, bits);
        }
        String prefix = text.substring(slash + 1);
        if (!prefix.matches("\\d{1,3}")) {
            throw new IllegalArgumentException("prefix length must be a number from 0 to " + bits + " but was \""
                    + shorten(prefix) + "\"");
        }
        return new Cidr(address, Integer.parseInt(prefix));
    }

    /** Whether {@code address} is in this range; false for an address of the other family. */
    public boolean contains(InetAddress address) {
        byte[] bytes = address.getAddress();
        byte[] net = network.getAddress();
        if (bytes.length != net.length) {
            return false;
        }
        return Arrays.equals(ClientAddresses.mask(bytes, prefixLength), net);
    }

    /** {@code 10.0.0.0/8}, {@code 2001:db8::/32}: IPv6 in the short form of RFC 5952. */
    @Override
    public String toString() {
        return ClientAddresses.format(network) + "/" + prefixLength;
    }

    private static String shorten(String text) {
        return text.length() > 60 ? text.substring(0, 60) + "..." : text;
    }
}
