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
 * @param whileBlocked   which keys still work from an address blocked for guessing; default
 *                       {@link WhileBlocked#KNOWN_KEYS}
 * @param principalPlan  the plan of an authenticated principal the customer directory does not know,
 *                       counted as {@code user:<name>}; default null: such a principal is answered 401
 */
public record Identity(String header, MissingKey missingKey, String anonymousPlan, List<Cidr> trustedProxies,
                       int ipv6Prefix, @Nullable String userHeader, Limit failedKeys, WhileBlocked whileBlocked,
                       @Nullable String principalPlan) {

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
        Objects.requireNonNull(whileBlocked, "whileBlocked");
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
        this(header, missingKey, anonymousPlan, List.of(), DEFAULT_IPV6_PREFIX, null, DEFAULT_FAILED_KEYS,
                WhileBlocked.KNOWN_KEYS, null);
    }

    /** These settings with other trusted proxies. */
    public Identity withTrustedProxies(List<Cidr> proxies) {
        return new Identity(header, missingKey, anonymousPlan, proxies, ipv6Prefix, userHeader, failedKeys,
                whileBlocked, principalPlan);
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
     * The end user a trusted gateway names for an anonymous request: {@code endUserValue} when
     * {@link #userHeader()} is set, {@code peer} is a trusted proxy and the value is 1 to 128
     * characters without control characters; else null (the request is counted by address).
     */
    public @Nullable String endUser(@Nullable InetAddress peer, @Nullable String endUserValue) {
        if (userHeader != null && endUserValue != null && peer != null && validUserId(endUserValue)
                && trustedProxy(peer)) {
            return endUserValue;
        }
        return null;
    }

    /**
     * The group an address is counted in: IPv4 as it is, IPv6 as its network of
     * {@link #ipv6Prefix()} bits, IPv6 forms that embed an IPv4 address as that address
     * ({@link ClientAddresses#group}).
     */
    public String group(InetAddress address) {
        return ClientAddresses.group(address, ipv6Prefix);
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

    /** Which keys still work from a client address that is blocked for guessing keys. */
    public enum WhileBlocked {
        /**
         * Keys that worked from that address within the last 24 hours: the customers behind a shared
         * NAT keep working while no new key can be tried from there. The default.
         */
        KNOWN_KEYS,
        /** None: every key is refused until the block ends. */
        NO_KEYS
    }

    /** What to do with a request that carries no API key. */
    public enum MissingKey {
        /** Limit it on the anonymous plan, keyed by client IP. */
        ANONYMOUS,
        /** Answer 401. */
        REJECT
    }
}
