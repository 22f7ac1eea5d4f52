package dev.quota.cdi;

import dev.quota.core.spi.QuotaStore;
import dev.quota.core.store.InMemoryStore;
import java.util.List;
import java.util.function.IntSupplier;

/** Builds the store {@code quota.store} names; a backend's classes are loaded only when it is chosen. */
final class Stores {

    private Stores() {
    }

    /**
     * A store and what runs beside it.
     *
     * @param store         the store, closed by the service
     * @param liveInstances how many instances share the limits, for the {@code local} failure policy
     * @param rank          this instance's place among them (who gets the remainder of a divided limit)
     * @param companions    closed before the service (an instance registry)
     */
    record Built(QuotaStore store, IntSupplier liveInstances, IntSupplier rank, List<AutoCloseable> companions) {
        Built {
            companions = List.copyOf(companions);
        }
    }

    /**
     * The store of {@code settings}.
     *
     * @throws InvalidSettingsException if the backend's module is missing or the store cannot be reached
     */
    static Built build(QuotaSettings settings, AppBeans beans) {
        return switch (settings.store()) {
            case MEMORY -> new Built(InMemoryStore.builder().build(), () -> 1, () -> 0, List.of());
            case REDIS -> {
                requireModule("dev.quota.redis.RedisStore", "redis", "quota-redis");
                yield RedisStores.build(settings);
            }
            case JCACHE -> {
                requireModule("dev.quota.jcache.JCacheStore", "jcache", "quota-jcache");
                yield JCacheStores.build(settings, beans);
            }
        };
    }

    private static void requireModule(String className, String store, String artifact) {
        try {
            Class.forName(className, false, Stores.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw new InvalidSettingsException(List.of(QuotaSettings.STORE + ": " + store + " needs dev.quota:"
                    + artifact + " in the application (WEB-INF/lib), but " + className + " is not there"));
        }
    }
}
