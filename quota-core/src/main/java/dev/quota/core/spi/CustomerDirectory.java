package dev.quota.core.spi;

import dev.quota.core.Customer;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * Where customers come from: "this API key's SHA-256 belongs to customer ACME on plan pro, twice the
 * limits". The config file's {@code customers} and {@code apiKeys} sections are one implementation
 * (the default); an application that keeps its customers in its own database implements this over
 * it and wraps it in {@link #cached}, so a request does not cost a database query.
 *
 * <p>Customers returned here are {@link Customer.Kind#ACCOUNT}s on a plan the config defines. A
 * lookup may throw; the request is then answered 503 and the failure logged.
 */
public interface CustomerDirectory {

    /**
     * The customer an API key belongs to, or null when the key is unknown.
     *
     * @param sha256Hex the lower-case hex SHA-256 of the key's UTF-8 bytes: the plain key never
     *                  reaches the directory
     */
    @Nullable Customer byApiKeyHash(String sha256Hex);

    /**
     * The customer an authenticated principal belongs to, or null when the directory does not know
     * it (the config's {@code identity.principalPlan} then decides). Default: null.
     */
    default @Nullable Customer byPrincipal(String name) {
        return null;
    }

    /** The customer with this id, for the admin API, or null. Default: null. */
    default @Nullable Customer byId(String id) {
        return null;
    }

    /**
     * {@code directory} behind a bounded cache: each answer (a customer or "unknown") is kept for
     * {@code ttl}, then refreshed in the background while the old answer keeps serving; an answer is
     * dropped after ten times {@code ttl} without use, and past {@code maxEntries} the least useful
     * go first. A refresh that fails keeps the old answer. A key issued or revoked in the directory
     * takes effect within {@code ttl}.
     *
     * <pre>{@code
     * CustomerDirectory.cached(new JdbcCustomers(dataSource), Duration.ofSeconds(30), 100_000)
     * }</pre>
     *
     * @throws IllegalArgumentException if ttl is not positive or {@code maxEntries < 1}
     */
    static CustomerDirectory cached(CustomerDirectory directory, Duration ttl, long maxEntries) {
        return new CachedCustomerDirectory(directory, ttl, maxEntries);
    }
}
