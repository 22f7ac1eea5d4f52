package dev.quota.core;

import dev.quota.core.internal.Memo;
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
 * <p>A value: equal when every setting is. Made by {@link #builder()} (every setting at its default
 * until set) or read from the {@code identity:} section of the config file; a setting added in a
 * later release gets a default and a builder method, so code that builds one keeps compiling.
 */
public final class Identity {

    /**
     * The default failed-key limit: 10 unknown keys per client address, one more every 6 seconds
     * (capacity 10, greedy refill 10 per minute).
     */
    public static final Limit DEFAULT_FAILED_KEYS = new Limit("failed-keys", 10, Refill.greedy(10, Duration.ofMinutes(1)));

    /** The default IPv6 grouping: a /64 per anonymous caller. */
    public static final int DEFAULT_IPV6_PREFIX = 64;

    /**
     * The default bound on pending bodies: 16 requests per customer, and 16 per client address
     * group, waiting for their body on one instance at once (a quarter of a 64-thread pool).
     */
    public static final int DEFAULT_PENDING_BODIES = 16;

    /** The most {@link #pendingBodies()} may be. */
    public static final int MAX_PENDING_BODIES = 100_000;

    /** The defaults: {@code X-API-Key}, anonymous callers on plan {@code anonymous}, no trusted proxy. */
    public static final Identity DEFAULT = builder().build();

    /** The longest user id taken from {@link #userHeader()}; longer values are ignored. */
    static final int MAX_USER_ID = 128;
    /** How many recent addresses' groups are kept (their text only: no key, no customer). */
    private static final int GROUP_SLOTS = 256;

    private final String header;
    private final MissingKey missingKey;
    private final String anonymousPlan;
    private final List<Cidr> trustedProxies;
    private final int ipv6Prefix;
    private final @Nullable String userHeader;
    private final Limit failedKeys;
    private final WhileBlocked whileBlocked;
    private final @Nullable String principalPlan;
    private final int pendingBodies;
    /** Recent addresses' groups: asked twice per request (the caller, then its known key), formatted once per address. */
    private final Memo<InetAddress, String> groups;

    private Identity(Builder b) {
        this.header = b.header;
        this.missingKey = b.missingKey;
        this.anonymousPlan = b.anonymousPlan;
        this.trustedProxies = List.copyOf(b.trustedProxies);
        this.ipv6Prefix = b.ipv6Prefix;
        this.userHeader = b.userHeader;
        this.failedKeys = b.failedKeys;
        this.whileBlocked = b.whileBlocked;
        this.principalPlan = b.principalPlan;
        this.pendingBodies = b.pendingBodies;
        int prefix = ipv6Prefix;
        this.groups = new Memo<>(GROUP_SLOTS, address -> ClientAddresses.group(address, prefix));
    }

    /** A builder with every setting at its default ({@link #DEFAULT}). */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding these settings, to change some of them. */
    public Builder toBuilder() {
        return new Builder().header(header).missingKey(missingKey).anonymousPlan(anonymousPlan)
                .trustedProxies(trustedProxies).ipv6Prefix(ipv6Prefix).userHeader(userHeader).failedKeys(failedKeys)
                .whileBlocked(whileBlocked).principalPlan(principalPlan).pendingBodies(pendingBodies);
    }

    /** The request header carrying the API key; default {@code X-API-Key}. */
    public String header() {
        return header;
    }

    /** What happens to a request without a key; default {@link MissingKey#ANONYMOUS}. */
    public MissingKey missingKey() {
        return missingKey;
    }

    /** The plan for anonymous callers, keyed by client IP; default {@code anonymous}. */
    public String anonymousPlan() {
        return anonymousPlan;
    }

    /**
     * Peers whose {@code X-Forwarded-For} and {@link #userHeader()} are believed; default none: the
     * connection's address is the client, whatever headers say.
     */
    public List<Cidr> trustedProxies() {
        return trustedProxies;
    }

    /**
     * Anonymous IPv6 callers share one bucket per network of this many bits, 1 to 128; default 64
     * (one customer line).
     */
    public int ipv6Prefix() {
        return ipv6Prefix;
    }

    /**
     * A header naming the end user of an anonymous request, believed only from a trusted proxy (an
     * API gateway that authenticated the user); default null: never read.
     */
    public @Nullable String userHeader() {
        return userHeader;
    }

    /**
     * How many requests with an unknown API key one client address may send before it is answered
     * 429 instead of 401; default {@link #DEFAULT_FAILED_KEYS}, 10 per minute.
     */
    public Limit failedKeys() {
        return failedKeys;
    }

    /** Which keys still work from an address blocked for guessing; default {@link WhileBlocked#KNOWN_KEYS}. */
    public WhileBlocked whileBlocked() {
        return whileBlocked;
    }

    /**
     * The plan of an authenticated principal the customer directory does not know, counted as
     * {@code user:<name>}; default null: such a principal is answered 401.
     */
    public @Nullable String principalPlan() {
        return principalPlan;
    }

    /**
     * How many requests of one customer, and how many from one client address group, may wait for
     * their body at once on this instance; default {@link #DEFAULT_PENDING_BODIES}, 16. A request
     * whose body is on its way holds a worker thread of the server: past this bound it is answered
     * 429 {@code too-many-pending-bodies} when it arrives, before its body is read, whatever quota
     * the customer has left, so one customer or one address holds at most this many workers.
     */
    public int pendingBodies() {
        return pendingBodies;
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
        return Objects.requireNonNull(groups.get(address), "every address has a group");
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

    @Override
    public boolean equals(@Nullable Object o) {
        return o instanceof Identity other && header.equals(other.header) && missingKey == other.missingKey
                && anonymousPlan.equals(other.anonymousPlan) && trustedProxies.equals(other.trustedProxies)
                && ipv6Prefix == other.ipv6Prefix && Objects.equals(userHeader, other.userHeader)
                && failedKeys.equals(other.failedKeys) && whileBlocked == other.whileBlocked
                && Objects.equals(principalPlan, other.principalPlan) && pendingBodies == other.pendingBodies;
    }

    @Override
    public int hashCode() {
        return Objects.hash(header, missingKey, anonymousPlan, trustedProxies, ipv6Prefix, userHeader, failedKeys,
                whileBlocked, principalPlan, pendingBodies);
    }

    @Override
    public String toString() {
        return "Identity[header=" + header + ", missingKey=" + missingKey + ", anonymousPlan=" + anonymousPlan
                + ", trustedProxies=" + trustedProxies + ", ipv6Prefix=" + ipv6Prefix + ", userHeader=" + userHeader
                + ", failedKeys=" + failedKeys + ", whileBlocked=" + whileBlocked + ", principalPlan="
                + principalPlan + ", pendingBodies=" + pendingBodies + "]";
    }

    /**
     * Settings for an {@link Identity} built in code (the config file's {@code identity:} section is
     * the usual way). Every setting starts at its default; {@link #build()} checks them.
     */
    public static final class Builder {
        private String header = "X-API-Key";
        private MissingKey missingKey = MissingKey.ANONYMOUS;
        private String anonymousPlan = "anonymous";
        private List<Cidr> trustedProxies = List.of();
        private int ipv6Prefix = DEFAULT_IPV6_PREFIX;
        private @Nullable String userHeader;
        private Limit failedKeys = DEFAULT_FAILED_KEYS;
        private WhileBlocked whileBlocked = WhileBlocked.KNOWN_KEYS;
        private @Nullable String principalPlan;
        private int pendingBodies = DEFAULT_PENDING_BODIES;

        private Builder() {
        }

        /**
         * The request header carrying the API key; default {@code X-API-Key}.
         *
         * @throws NullPointerException if {@code header} is null
         */
        public Builder header(String header) {
            this.header = Objects.requireNonNull(header, "header");
            return this;
        }

        /**
         * What happens to a request without a key; default {@link MissingKey#ANONYMOUS}.
         *
         * @throws NullPointerException if {@code missingKey} is null
         */
        public Builder missingKey(MissingKey missingKey) {
            this.missingKey = Objects.requireNonNull(missingKey, "missingKey");
            return this;
        }

        /**
         * The plan for anonymous callers; default {@code anonymous}.
         *
         * @throws NullPointerException if {@code anonymousPlan} is null
         */
        public Builder anonymousPlan(String anonymousPlan) {
            this.anonymousPlan = Objects.requireNonNull(anonymousPlan, "anonymousPlan");
            return this;
        }

        /**
         * Peers whose forwarding headers are believed; default none.
         *
         * @throws NullPointerException if {@code trustedProxies} or one of them is null
         */
        public Builder trustedProxies(List<Cidr> trustedProxies) {
            this.trustedProxies = List.copyOf(trustedProxies);
            return this;
        }

        /** The IPv6 network size, in bits, anonymous callers are grouped by; default 64 (checked in {@link #build()}). */
        public Builder ipv6Prefix(int ipv6Prefix) {
            this.ipv6Prefix = ipv6Prefix;
            return this;
        }

        /** The header naming an anonymous request's end user, read from trusted proxies only; default null: never read. */
        public Builder userHeader(@Nullable String userHeader) {
            this.userHeader = userHeader;
            return this;
        }

        /**
         * The failed-key limit per client address; default {@link #DEFAULT_FAILED_KEYS}.
         *
         * @throws NullPointerException if {@code failedKeys} is null
         */
        public Builder failedKeys(Limit failedKeys) {
            this.failedKeys = Objects.requireNonNull(failedKeys, "failedKeys");
            return this;
        }

        /**
         * Which keys still work from a blocked address; default {@link WhileBlocked#KNOWN_KEYS}.
         *
         * @throws NullPointerException if {@code whileBlocked} is null
         */
        public Builder whileBlocked(WhileBlocked whileBlocked) {
            this.whileBlocked = Objects.requireNonNull(whileBlocked, "whileBlocked");
            return this;
        }

        /** The plan of an authenticated principal the directory does not know; default null: answered 401. */
        public Builder principalPlan(@Nullable String principalPlan) {
            this.principalPlan = principalPlan;
            return this;
        }

        /**
         * Requests per customer, and per client address group, that may wait for their body at once
         * on one instance; default {@link #DEFAULT_PENDING_BODIES} (checked in {@link #build()}).
         */
        public Builder pendingBodies(int pendingBodies) {
            this.pendingBodies = pendingBodies;
            return this;
        }

        /**
         * The settings.
         *
         * @throws IllegalArgumentException if a header name is blank, ipv6Prefix is not 1 to 128,
         *                                  failedKeys is calendar-aligned, or pendingBodies is not 1 to
         *                                  {@link #MAX_PENDING_BODIES}
         */
        public Identity build() {
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
            if (pendingBodies < 1 || pendingBodies > MAX_PENDING_BODIES) {
                throw new IllegalArgumentException("pendingBodies must be 1 to " + MAX_PENDING_BODIES + " but was "
                        + pendingBodies);
            }
            return new Identity(this);
        }
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
