package dev.quota.core;

import dev.quota.core.net.Cidr;
import dev.quota.core.net.ClientAddresses;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * How callers are identified, and how far a client's own claims are believed.
 *
 * @param header         the request header carrying the API key; default {@code X-API-Key}
 * @param missingKey     what happens to a request without a key; default {@link MissingKey#ANONYMOUS}
 * @param anonymousPlan  the plan for anonymous callers, keyed by client IP; default {@code anonymous}
 * @param trustedProxies peers whose {@code X-Forwarded-For} and {@link #userHeader()} are believed;
 *                       default none: the connection's address is the client, whatever headers say
 * @param ipv6Prefix     anonymous IPv6 callers share one bucket per network of this many bits,
 *                       1 to 128; default 64 (one customer line)
 * @param userHeader     a header naming the end user of an anonymous request, believed only from a
 *                       trusted proxy (an API gateway that authenticated the user); default null:
 *                       never read
 * @param failedKeys     how many requests with an unknown API key one client address may send
 *                       before it is answered 429 instead of 401; default {@link #DEFAULT_FAILED_KEYS},
 *                       10 per minute
 */
public record Identity(String header, MissingKey missingKey, String anonymousPlan, List<Cidr> trustedProxies,
                       int ipv6Prefix, @Nullable String userHeader, Limit failedKeys) {

    /**
     * The default failed-key limit: 10 unknown keys per client address, one more every 6 seconds
     * (capacity 10, greedy refill 10 per minute).
     */
    public static final Limit DEFAULT_FAILED_KEYS = new Limit("failed-keys", 10, Refill.greedy(10, Duration.ofMinutes(1)));

    /** The default IPv6 grouping: a /64 per anonymous caller. */
    public static final int DEFAULT_IPV6_PREFIX = 64;

    /** The defaults: {@code X-API-Key}, anonymous callers on plan {@code anonymous}, no trusted proxy. */
    public static final Identity DEFAULT = new Identity("X-API-Key", MissingKey.ANONYMOUS, "anonymous");

    /** The longest user id taken from {@link #userHeader()}; longer values are ignored. */
    static final int MAX_USER_ID = 128;

    /**
     * @throws IllegalArgumentException if a header name is blank, ipv6Prefix is not 1 to 128, or
     *                                  failedKeys is calendar-aligned
     */
    public Identity {
        Objects.requireNonNull(header, "header");
        Objects.requireNonNull(missingKey, "missingKey");
        Objects.requireNonNull(anonymousPlan, "anonymousPlan");
        Objects.requireNonNull(failedKeys, "failedKeys");
        trustedProxies = List.copyOf(trustedProxies);
        if (header.isBlank()) {
            throw new IllegalArgumentException("identity header must not be blank");
        }
        if (userHeader != null && userHeader.isBlank()) {
            throw new IllegalArgumentException("identity userHeader must not be blank");
        }
        if (ipv6Prefix < 1 || ipv6Prefix > 128) {
            throw new IllegalArgumentException("ipv6Prefix must be 1 to 128 but was " + ipv6Prefix);
        }
        if (failedKeys.refill() instanceof Refill.Calendar) {
            throw new IllegalArgumentException("failedKeys must refill greedily or by interval, not by calendar");
        }
    }

    /** Header, missing-key handling and anonymous plan; every other setting at its default. */
    public Identity(String header, MissingKey missingKey, String anonymousPlan) {
        this(header, missingKey, anonymousPlan, List.of(), DEFAULT_IPV6_PREFIX, null, DEFAULT_FAILED_KEYS);
    }

    /** Whether {@code peer}, the address that opened the connection, is a trusted proxy. */
    public boolean trustedProxy(InetAddress peer) {
        return ClientAddresses.anyContains(trustedProxies, peer);
    }

    /**
     * The client's address: {@code peer} itself, or, when {@code peer} is a trusted proxy, the
     * right-most untrusted hop of {@code X-Forwarded-For} (see {@link ClientAddresses#forwardedClient}).
     *
     * @param forwardedFor every {@code X-Forwarded-For} header value in the order received; may be empty
     */
    public InetAddress clientAddress(InetAddress peer, List<String> forwardedFor) {
        return ClientAddresses.forwardedClient(peer, forwardedFor, trustedProxies);
    }

    /**
     * The customer an anonymous request is counted as, on {@link #anonymousPlan()}:
     * <ul>
     *   <li>{@code user:<value>} when {@link #userHeader()} is set, {@code peer} is a trusted proxy
     *       and the header value is 1 to 128 characters without control characters: each end user
     *       the gateway vouches for gets a bucket of their own;
     *   <li>otherwise {@code ip:<address>} for the client address ({@link #clientAddress}), IPv6
     *       grouped by {@link #ipv6Prefix()}: {@code ip:203.0.113.7}, {@code ip:2001:db8:1:2::/64}.
     * </ul>
     * The prefixes keep the two kinds apart from each other and from configured customer ids.
     *
     * @param forwardedFor    every {@code X-Forwarded-For} value in the order received; may be empty
     * @param userHeaderValue the value of {@link #userHeader()}, or null when absent or not configured
     */
    public Customer anonymousCustomer(InetAddress peer, List<String> forwardedFor, @Nullable String userHeaderValue) {
        if (userHeader != null && userHeaderValue != null && validUserId(userHeaderValue) && trustedProxy(peer)) {
            return Customer.of("user:" + userHeaderValue, anonymousPlan);
        }
        return Customer.of("ip:" + ClientAddresses.group(clientAddress(peer, forwardedFor), ipv6Prefix), anonymousPlan);
    }

    private static boolean validUserId(String value) {
        if (value.isEmpty() || value.length() > MAX_USER_ID) {
            return false;
        }
        for (int i = 0; i < value.length(); i++) {
            if (Character.isISOControl(value.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    /** What to do with a request that carries no API key. */
    public enum MissingKey {
        /** Limit it on the anonymous plan, keyed by client IP. */
        ANONYMOUS,
        /** Answer 401. */
        REJECT
    }
}
