package dev.quota.demo;

import dev.quota.core.net.ClientAddresses;
import java.util.Locale;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The {@code Host} header as this server accepts it: {@code host[:port]}, where the host is a DNS
 * name, a dotted-quad IPv4 address or a bracketed IPv6 address and the port is at most 65535.
 *
 * <p>Stricter than RFC 3986's {@code reg-name} on purpose: Jersey builds every request's base URI
 * from this header through {@link java.net.URI}, which takes server-based authorities only, and
 * Grizzly throws an {@code IllegalStateException} for a port it cannot parse ({@code ::1:32080},
 * {@code host:-1}), which reached the client as a 500. What passes here, both accept.
 */
final class HostHeader {

    /** The longest host accepted: a DNS name of 253 characters (a bracketed IPv6 literal is shorter). */
    static final int MAX_HOST_LENGTH = 253;

    private static final Pattern LABEL = Pattern.compile("[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?");
    private static final Pattern DIGITS = Pattern.compile("[0-9]+");
    private static final Pattern IPV4 = Pattern.compile(
            "(?:(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\\.){3}(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])");

    private HostHeader() {
    }

    /**
     * The host of a well-formed header value, lower-cased, IPv6 without brackets; null when the
     * value is malformed.
     */
    static @Nullable String host(String value) {
        String host = value;
        if (value.startsWith("[")) {
            int close = value.indexOf(']');
            if (close < 0 || !validPort(value.substring(close + 1))) {
                return null;
            }
            String literal = value.substring(1, close);
            // an IPv6 literal (IPv4-mapped ones included), never a name or a zone id
            return literal.indexOf(':') >= 0 && ClientAddresses.parse(literal) != null
                    ? literal.toLowerCase(Locale.ROOT) : null;
        }
        int colon = value.indexOf(':');
        if (colon >= 0) {
            // a second colon means an unbracketed IPv6 address or garbage: neither is a host[:port]
            if (!validPort(value.substring(colon))) {
                return null;
            }
            host = value.substring(0, colon);
        }
        return validName(host) ? host.toLowerCase(Locale.ROOT) : null;
    }

    /** Whether {@code value} is a well-formed {@code Host} header value. */
    static boolean valid(String value) {
        return host(value) != null;
    }

    /** Empty, or {@code :} and 0 to 5 digits up to 65535 ({@code host:} is allowed by RFC 3986). */
    private static boolean validPort(String suffix) {
        if (suffix.isEmpty() || suffix.equals(":")) {
            return true;
        }
        String digits = suffix.substring(1);
        return suffix.charAt(0) == ':' && digits.length() <= 5 && DIGITS.matcher(digits).matches()
                && Integer.parseInt(digits) <= 65_535;
    }

    /**
     * A DNS name (labels of letters, digits and inner hyphens, 1 to 63 characters each, an
     * optional final dot) or, when the last label is all digits, a dotted-quad IPv4 address
     * without leading zeros ({@code 1.2.3.999} and {@code 010.1.1.1} are not names either).
     */
    private static boolean validName(String host) {
        if (host.isEmpty() || host.length() > MAX_HOST_LENGTH + 1) {
            return false;
        }
        String name = host.endsWith(".") ? host.substring(0, host.length() - 1) : host;
        if (name.isEmpty() || name.length() > MAX_HOST_LENGTH) {
            return false;
        }
        String[] labels = name.split("\\.", -1);
        if (DIGITS.matcher(labels[labels.length - 1]).matches()) {
            return name.equals(host) && IPV4.matcher(name).matches();
        }
        for (String label : labels) {
            if (!LABEL.matcher(label).matches()) {
                return false;
            }
        }
        return true;
    }
}
