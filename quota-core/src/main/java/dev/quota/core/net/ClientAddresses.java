package dev.quota.core.net;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Client addresses as the limiter sees them: parsed from literals only (never a DNS lookup), taken
 * from {@code X-Forwarded-For} only behind a trusted proxy, and grouped by network for IPv6.
 *
 * <p>Why grouping: one IPv6 customer line usually gets a whole /64 (18 quintillion addresses), so
 * keying anonymous callers by full address would give each of them unlimited fresh buckets. With
 * the default prefix 64, {@code 2001:db8:1:2::a} and {@code 2001:db8:1:2::b} share the bucket of
 * {@code 2001:db8:1:2::/64}.
 */
public final class ClientAddresses {

    /** At most this many {@code X-Forwarded-For} hops are examined, from the right. */
    static final int MAX_HOPS = 32;

    private static final Pattern IPV6_CHARS = Pattern.compile("[0-9A-Fa-f:.]{2,45}");
    private static final Pattern IPV4_WITH_PORT = Pattern.compile("(\\d{1,3}(?:\\.\\d{1,3}){3}):\\d{1,5}");
    private static final Pattern BRACKETED = Pattern.compile("\\[([0-9A-Fa-f:.]{2,45})\\](?::\\d{1,5})?");

    private ClientAddresses() {
    }

    /**
     * The address written as {@code text}: four decimal octets ({@code 203.0.113.7}) or an IPv6
     * literal ({@code 2001:db8::1}, {@code ::ffff:192.0.2.1}, which is read as IPv4). Null for
     * anything else: host names, shortened IPv4 forms such as {@code 10.1}, zone ids, ports.
     */
    public static @Nullable InetAddress parse(String text) {
        byte[] v4 = ipv4(text);
        if (v4 != null) {
            return byAddress(v4);
        }
        if (text.indexOf(':') < 0 || !IPV6_CHARS.matcher(text).matches()) {
            return null;
        }
        try {
            // The brackets make the JDK treat the text as an IPv6 literal or fail: it never resolves it.
            return InetAddress.getByName("[" + text + "]");
        } catch (UnknownHostException e) {
            return null;
        }
    }

    /**
     * The client behind {@code peer}, the address that opened the connection. When {@code peer} is
     * not in {@code trustedProxies}, that is {@code peer} itself: any {@code X-Forwarded-For} it sent
     * is the client's own claim and ignored. Otherwise the hops of {@code forwardedFor} (header
     * values in the order received, each a comma-separated list) are walked from the right,
     * skipping trusted proxies; the first untrusted address is the client. With trusted proxies
     * {@code 10.0.0.0/8}, peer {@code 10.0.0.5} and {@code X-Forwarded-For: 198.51.100.9, 203.0.113.7, 10.0.0.9}
     * the client is {@code 203.0.113.7} ({@code 198.51.100.9} was written by the client and may be a lie).
     * A hop that is not an address stops the walk at the last trusted hop, which is then the client.
     * Hops may carry a port ({@code 203.0.113.7:4711}, {@code [2001:db8::1]:443}).
     */
    public static InetAddress forwardedClient(InetAddress peer, List<String> forwardedFor, List<Cidr> trustedProxies) {
        if (!anyContains(trustedProxies, peer) || forwardedFor.isEmpty()) {
            return peer;
        }
        List<String> hops = new ArrayList<>();
        for (String header : forwardedFor) {
            if (header != null) {
                for (String hop : header.split(",", -1)) {
                    hops.add(hop.trim());
                }
            }
        }
        InetAddress current = peer;
        int examined = 0;
        for (int i = hops.size() - 1; i >= 0 && examined < MAX_HOPS; i--, examined++) {
            InetAddress hop = parseHop(hops.get(i));
            if (hop == null) {
                return current;
            }
            current = hop;
            if (!anyContains(trustedProxies, hop)) {
                return hop;
            }
        }
        return current;
    }

    /**
     * The bucket identity of a client address: an IPv4 address as it is ({@code 203.0.113.7}), an
     * IPv6 address as its network of {@code ipv6Prefix} bits ({@code 2001:db8:1:2::/64}), or the
     * full address when the prefix is 128. IPv6 forms that carry an IPv4 client address count as that
     * address ({@link #embeddedIpv4}): every IPv4 client behind a NAT64 gateway would otherwise share
     * the gateway's one /64.
     *
     * @throws IllegalArgumentException if ipv6Prefix is not 1 to 128
     */
    public static String group(InetAddress address, int ipv6Prefix) {
        if (ipv6Prefix < 1 || ipv6Prefix > 128) {
            throw new IllegalArgumentException("ipv6Prefix must be 1 to 128 but was " + ipv6Prefix);
        }
        if (address instanceof Inet4Address) {
            return format(address);
        }
        byte[] ipv4 = embeddedIpv4(address.getAddress());
        if (ipv4 != null) {
            return format(ipv4);
        }
        if (ipv6Prefix == 128) {
            return format(address);
        }
        return format(mask(address.getAddress(), ipv6Prefix)) + "/" + ipv6Prefix;
    }

    /**
     * The IPv4 address an IPv6 address carries for a client, or null: NAT64 with the well-known
     * prefix {@code 64:ff9b::/96} (RFC 6052) and the local-use prefix {@code 64:ff9b:1::/48} (RFC 8215,
     * last 32 bits), 6to4 {@code 2002::/16} (bits 16 to 47, RFC 3056), Teredo {@code 2001::/32} (the
     * client's address, inverted, in the last 32 bits, RFC 4380), IPv4-compatible {@code ::a.b.c.d}
     * and IPv4-mapped {@code ::ffff:a.b.c.d}.
     */
    static byte @Nullable [] embeddedIpv4(byte[] v6) {
        if (v6.length != 16) {
            return null;
        }
        int w0 = word(v6, 0);
        int w1 = word(v6, 2);
        if (w0 == 0x0064 && w1 == 0xff9b && allZero(v6, 4, 12)) {
            return java.util.Arrays.copyOfRange(v6, 12, 16); // 64:ff9b::/96
        }
        if (w0 == 0x0064 && w1 == 0xff9b && word(v6, 4) == 0x0001) {
            return java.util.Arrays.copyOfRange(v6, 12, 16); // 64:ff9b:1::/48
        }
        if (w0 == 0x2002) {
            return java.util.Arrays.copyOfRange(v6, 2, 6); // 6to4
        }
        if (w0 == 0x2001 && w1 == 0x0000) {
            byte[] out = java.util.Arrays.copyOfRange(v6, 12, 16); // Teredo: obfuscated client address
            for (int i = 0; i < 4; i++) {
                out[i] = (byte) ~out[i];
            }
            return out;
        }
        if (allZero(v6, 0, 10) && ((v6[10] == 0 && v6[11] == 0 && !allZero(v6, 12, 14))
                || (v6[10] == (byte) 0xff && v6[11] == (byte) 0xff))) {
            return java.util.Arrays.copyOfRange(v6, 12, 16); // ::a.b.c.d and ::ffff:a.b.c.d
        }
        return null;
    }

    private static int word(byte[] bytes, int offset) {
        return ((bytes[offset] & 0xff) << 8) | (bytes[offset + 1] & 0xff);
    }

    private static boolean allZero(byte[] bytes, int from, int to) {
        for (int i = from; i < to; i++) {
            if (bytes[i] != 0) {
                return false;
            }
        }
        return true;
    }

    /** Whether any range of {@code cidrs} contains {@code address}. */
    public static boolean anyContains(List<Cidr> cidrs, InetAddress address) {
        for (int i = 0; i < cidrs.size(); i++) { // per request: no iterator
            if (cidrs.get(i).contains(address)) {
                return true;
            }
        }
        return false;
    }

    /** {@code 203.0.113.7}, or IPv6 in the RFC 5952 short form: {@code 2001:db8::1}. */
    public static String format(InetAddress address) {
        return format(address.getAddress());
    }

    static String format(byte[] bytes) {
        if (bytes.length == 4) {
            return (bytes[0] & 0xff) + "." + (bytes[1] & 0xff) + "." + (bytes[2] & 0xff) + "." + (bytes[3] & 0xff);
        }
        int[] groups = new int[8];
        for (int i = 0; i < 8; i++) {
            groups[i] = ((bytes[2 * i] & 0xff) << 8) | (bytes[2 * i + 1] & 0xff);
        }
        // RFC 5952: the longest run of two or more zero groups (the first on a tie) becomes "::"
        int bestStart = -1;
        int bestLength = 1;
        for (int i = 0; i < 8; ) {
            int j = i;
            while (j < 8 && groups[j] == 0) {
                j++;
            }
            if (j - i > bestLength) {
                bestStart = i;
                bestLength = j - i;
            }
            i = j == i ? i + 1 : j;
        }
        var out = new StringBuilder(39);
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                out.append("::");
                i += bestLength - 1;
                continue;
            }
            if (out.length() > 0 && out.charAt(out.length() - 1) != ':') {
                out.append(':');
            }
            out.append(Integer.toHexString(groups[i]));
        }
        return out.toString();
    }

    /** {@code bytes} with every bit past the first {@code prefixLength} cleared. */
    static byte[] mask(byte[] bytes, int prefixLength) {
        byte[] out = bytes.clone();
        for (int i = 0; i < out.length; i++) {
            int keep = Math.max(0, Math.min(8, prefixLength - 8 * i));
            out[i] = (byte) (out[i] & (0xff << (8 - keep)));
        }
        return out;
    }

    /**
     * The four octets of {@code text} when it is exactly four decimal octets of one to three ASCII
     * digits each, 0 to 255, without a leading zero ({@code 010} is octal to some parsers and
     * decimal to others: the ambiguity is refused); else null. Read by hand: it runs on every
     * request, where a regular expression cost a match, four groups and four substrings.
     */
    static byte @Nullable [] ipv4(String text) {
        int length = text.length();
        if (length < 7 || length > 15) {
            return null;
        }
        byte[] bytes = new byte[4];
        int octet = 0;
        int start = 0;
        for (int i = 0; i <= length; i++) {
            char c = i < length ? text.charAt(i) : '.';
            if (c == '.') {
                int digits = i - start;
                if (octet == 4 || digits < 1 || digits > 3 || (digits > 1 && text.charAt(start) == '0')) {
                    return null;
                }
                int value = 0;
                for (int j = start; j < i; j++) {
                    value = value * 10 + (text.charAt(j) - '0');
                }
                if (value > 255) {
                    return null;
                }
                bytes[octet++] = (byte) value;
                start = i + 1;
            } else if (c < '0' || c > '9') {
                return null;
            }
        }
        return octet == 4 ? bytes : null;
    }

    private static @Nullable InetAddress parseHop(String hop) {
        Matcher bracketed = BRACKETED.matcher(hop);
        if (bracketed.matches()) {
            return parse(bracketed.group(1));
        }
        Matcher withPort = IPV4_WITH_PORT.matcher(hop);
        return parse(withPort.matches() ? withPort.group(1) : hop);
    }

    private static InetAddress byAddress(byte[] bytes) {
        try {
            return InetAddress.getByAddress(bytes);
        } catch (UnknownHostException e) {
            throw new IllegalStateException("a 4-byte address is always valid", e);
        }
    }
}
