package dev.quota.core;

import dev.quota.core.net.Cidr;
import dev.quota.core.net.ClientAddresses;
import java.net.InetAddress;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * Callers that are never limited: internal systems, health checkers, load tests. A request matches
 * when its customer id, its API key or its client address is listed; it is then
 * {@link QuotaDecision.Outcome#BYPASSED} without touching the store.
 *
 * @param customers customer ids
 * @param apiKeys   lower-case hex SHA-256 of API keys (upper case is folded)
 * @param cidrs     client address ranges, such as {@code 10.0.0.0/8}
 */
public record AllowList(Set<String> customers, Set<String> apiKeys, List<Cidr> cidrs) {

    /** Nobody is allow-listed: the default. */
    public static final AllowList NONE = new AllowList(Set.of(), Set.of(), List.of());

    /** Copies the collections and lower-cases the key hashes. */
    public AllowList {
        customers = Set.copyOf(customers);
        apiKeys = apiKeys.stream().map(k -> k.toLowerCase(Locale.ROOT)).collect(Collectors.toUnmodifiableSet());
        cidrs = List.copyOf(cidrs);
    }

    /** Whether nothing is listed. */
    public boolean isEmpty() {
        return customers.isEmpty() && apiKeys.isEmpty() && cidrs.isEmpty();
    }

    /**
     * Whether any of the given facts about a caller is listed; null arguments are skipped.
     *
     * @param customerId   the customer's id
     * @param apiKeySha256 the SHA-256 hex of the API key the request carried
     * @param address      the client address (after trusted-proxy resolution)
     */
    public boolean matches(@Nullable String customerId, @Nullable String apiKeySha256, @Nullable InetAddress address) {
        return (customerId != null && customers.contains(customerId))
                || (apiKeySha256 != null && apiKeys.contains(apiKeySha256.toLowerCase(Locale.ROOT)))
                || (address != null && ClientAddresses.anyContains(cidrs, address));
    }

    @Override
    public String toString() {
        return "AllowList[" + customers.size() + " customers, " + apiKeys.size() + " API keys, cidrs "
                + Objects.toString(cidrs) + "]";
    }
}
