package dev.quota.cdi;

import dev.quota.core.QuotaStack;
import dev.quota.core.spi.LeaseHolder;
import dev.quota.core.spi.QuotaStore;
import dev.quota.core.store.InMemoryStore;
import java.util.List;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/** Builds the store {@code quota.store} names; a backend's classes are loaded only when it is chosen. */
final class Stores {

    private Stores() {
    }

    /**
     * A store and what runs beside it, for {@link QuotaStack}.
     *
     * @param store         the store, owned by the stack from then on
     * @param healthCheck   the store's ping, which puts it behind a circuit breaker; null for the in-JVM store
     * @param liveInstances how many instances share the limits, for the {@code local} failure policy
     * @param rank          this instance's place among them (who gets the remainder of a divided limit)
     * @param leaseHolder   who takes this instance's leases, and which instances are known dead
     * @param companions    closed before the service (an instance registry)
     */
    record Built(QuotaStore store, @Nullable Runnable healthCheck, IntSupplier liveInstances, IntSupplier rank,
                 Supplier<LeaseHolder> leaseHolder, List<AutoCloseable> companions) {
        Built {
            companions = List.copyOf(companions);
        }

        /** Without an instance registry: leases held until given back or their deadline. */
        Built(QuotaStore store, @Nullable Runnable healthCheck, IntSupplier liveInstances, IntSupplier rank,
              List<AutoCloseable> companions) {
            this(store, healthCheck, liveInstances, rank, () -> LeaseHolder.NONE, companions);
        }

        /** The stack over this store: breaker (with a health check), instance count and companions. */
        QuotaStack.Builder stack() {
            QuotaStack.Builder stack = QuotaStack.builder(store).liveInstances(liveInstances, rank)
                    .leaseHolder(leaseHolder);
            Runnable ping = healthCheck;
            if (ping != null) {
                stack.healthCheck(ping);
            }
            companions.forEach(stack::companion);
            return stack;
        }
    }

    /**
     * The store of {@code settings}.
     *
     * @throws InvalidSettingsException if the backend's module is missing or the store cannot be reached
     */
    static Built build(QuotaSettings settings, AppBeans beans) {
        return switch (settings.store()) {
            case MEMORY -> new Built(InMemoryStore.builder().build(), null, () -> 1, () -> 0, List.of());
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
