package dev.quota.core.spi;

import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.LoadingCache;
import dev.quota.core.Customer;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/** {@link CustomerDirectory#cached}: answers, unknown ones included, kept and refreshed by Caffeine. */
final class CachedCustomerDirectory implements CustomerDirectory {

    private final CustomerDirectory directory;
    private final LoadingCache<String, Optional<Customer>> byKey;
    private final LoadingCache<String, Optional<Customer>> byPrincipal;
    private final LoadingCache<String, Optional<Customer>> byId;

    CachedCustomerDirectory(CustomerDirectory directory, Duration ttl, long maxEntries) {
        this.directory = Objects.requireNonNull(directory, "directory");
        if (ttl.isNegative() || ttl.isZero()) {
            throw new IllegalArgumentException("ttl must be positive but was " + ttl);
        }
        if (maxEntries < 1) {
            throw new IllegalArgumentException("maxEntries must be >= 1 but was " + maxEntries);
        }
        this.byKey = cache(ttl, maxEntries, hash -> Optional.ofNullable(directory.byApiKeyHash(hash)));
        this.byPrincipal = cache(ttl, maxEntries, name -> Optional.ofNullable(directory.byPrincipal(name)));
        this.byId = cache(ttl, Math.min(maxEntries, 10_000), id -> Optional.ofNullable(directory.byId(id)));
    }

    private static LoadingCache<String, Optional<Customer>> cache(Duration ttl, long max,
            com.github.benmanes.caffeine.cache.CacheLoader<String, Optional<Customer>> loader) {
        return Caffeine.newBuilder()
                .maximumSize(max)
                .refreshAfterWrite(ttl)
                .expireAfterAccess(ttl.multipliedBy(10))
                .build(loader);
    }

    @Override
    public @Nullable Customer byApiKeyHash(String sha256Hex) {
        return byKey.get(sha256Hex).orElse(null);
    }

    @Override
    public @Nullable Customer byPrincipal(String name) {
        return byPrincipal.get(name).orElse(null);
    }

    @Override
    public @Nullable Customer byId(String id) {
        return byId.get(id).orElse(null);
    }

    @Override
    public String toString() {
        return "cached " + directory;
    }
}
