package dev.quota.core;

import dev.quota.core.config.ConfigReloader;
import dev.quota.core.resilience.CircuitBreakerStore;
import dev.quota.core.spi.LeaseHolder;
import dev.quota.core.spi.QuotaStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running service's parts, assembled in one order: the store, behind a
 * {@link CircuitBreakerStore} that pings it while open (so an established outage is answered by
 * the failure policy at once); the live instance count, which the {@code local} policy divides
 * limits by; the {@link QuotaService}; and the {@link ConfigReloader} of its config file. Closed in
 * the reverse order. A failed assembly closes whatever it had started, the store included.
 *
 * <pre>{@code
 * RedisStore redis = RedisStore.builder().uri("redis://127.0.0.1:6379").build();
 * InstanceRegistry instances = InstanceRegistry.builder(redis.client()).build();
 * QuotaStack stack = QuotaStack.builder(redis)
 *         .healthCheck(redis::ping)
 *         .liveInstances(instances::liveInstances, instances::rank)
 *         .companion(instances)
 *         .service(service -> service.config(config))
 *         .watch(Path.of("quota.yaml"), Duration.ofMillis(500))
 *         .build();
 * }</pre>
 */
public final class QuotaStack implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(QuotaStack.class);

    private final QuotaService service;
    private final QuotaStore store;
    /** Closed in order, before the service: the reloader first, then the companions. */
    private final List<AutoCloseable> closeFirst;

    private QuotaStack(QuotaService service, QuotaStore store, List<AutoCloseable> closeFirst) {
        this.service = service;
        this.store = store;
        this.closeFirst = List.copyOf(closeFirst);
    }

    /** A builder over {@code store}, which the stack owns from now on (closed with it, or on a failed build). */
    public static Builder builder(QuotaStore store) {
        return new Builder(store);
    }

    /** The service. */
    public QuotaService service() {
        return service;
    }

    /** The store the service decides with: the circuit breaker when there is a health check, else the store. */
    public QuotaStore store() {
        return store;
    }

    /** Stops the reloader and the companions, then closes the service and its store. */
    @Override
    public void close() {
        closeAll(closeFirst);
        service.close();
    }

    private static void closeAll(List<AutoCloseable> resources) {
        for (AutoCloseable resource : resources) {
            try {
                resource.close();
            } catch (Exception e) {
                log.warn("quota: closing {} failed: {}", resource, e.toString());
            }
        }
    }

    /** Settings of a {@link QuotaStack}. */
    public static final class Builder {
        private final QuotaStore store;
        private @Nullable Runnable healthCheck;
        private IntSupplier liveInstances = () -> 1;
        private IntSupplier rank = () -> 0;
        private @Nullable Supplier<LeaseHolder> leaseHolder;
        private final List<AutoCloseable> companions = new ArrayList<>();
        private Consumer<QuotaServiceBuilder> service = builder -> { };
        private @Nullable Path configFile;
        private Duration reloadInterval = Duration.ofMillis(500);

        private Builder(QuotaStore store) {
            this.store = Objects.requireNonNull(store, "store");
        }

        /**
         * The store's health check: with one, the store sits behind a {@link CircuitBreakerStore}
         * (its defaults) that runs it while open; default none, the store as it is (an in-JVM store
         * cannot be down).
         */
        public Builder healthCheck(Runnable ping) {
            this.healthCheck = Objects.requireNonNull(ping, "ping");
            return this;
        }

        /**
         * How many instances share the limits and this instance's place among them, for the
         * {@code local} failure policy; default 1 and 0 (see
         * {@link QuotaServiceBuilder#liveInstances(IntSupplier, IntSupplier)}).
         */
        public Builder liveInstances(IntSupplier count, IntSupplier rank) {
            this.liveInstances = Objects.requireNonNull(count, "count");
            this.rank = Objects.requireNonNull(rank, "rank");
            return this;
        }

        /**
         * Who takes this instance's in-flight leases and which instances are known dead; default
         * {@link LeaseHolder#NONE}, or what {@link #service} sets (see
         * {@link QuotaServiceBuilder#leaseHolder(Supplier)}).
         */
        public Builder leaseHolder(Supplier<LeaseHolder> holder) {
            this.leaseHolder = Objects.requireNonNull(holder, "holder");
            return this;
        }

        /** Something that runs beside the store (an instance registry, a meter registry): closed before the service. */
        public Builder companion(AutoCloseable companion) {
            companions.add(Objects.requireNonNull(companion, "companion"));
            return this;
        }

        /**
         * The service's own settings (config, clock, listeners, key prefix, customers); the stack
         * sets its store and live instances. Default: none but those.
         */
        public Builder service(Consumer<QuotaServiceBuilder> settings) {
            this.service = Objects.requireNonNull(settings, "settings");
            return this;
        }

        /**
         * Watches {@code file}, the config's source, every {@code interval}, reloading the service on
         * an edit ({@link ConfigReloader}); default no file watched.
         *
         * @throws IllegalArgumentException if {@code interval} is not positive
         */
        public Builder watch(Path file, Duration interval) {
            if (interval.isNegative() || interval.isZero()) {
                throw new IllegalArgumentException("interval must be positive but was " + interval);
            }
            this.configFile = Objects.requireNonNull(file, "file");
            this.reloadInterval = interval;
            return this;
        }

        /**
         * Starts the stack; on failure closes what was given and started, and rethrows.
         *
         * @throws IllegalArgumentException if the service's settings are invalid
         */
        public QuotaStack build() {
            List<AutoCloseable> closeFirst = new ArrayList<>(companions);
            QuotaStore decideWith = store;
            QuotaService built = null;
            try {
                Runnable ping = healthCheck;
                if (ping != null) {
                    decideWith = CircuitBreakerStore.builder(store).healthCheck(ping).build();
                }
                QuotaServiceBuilder builder = QuotaService.builder();
                service.accept(builder);
                builder.store(decideWith).liveInstances(liveInstances, rank);
                Supplier<LeaseHolder> holder = leaseHolder;
                if (holder != null) {
                    builder.leaseHolder(holder);
                }
                built = builder.build();
                Path file = configFile;
                if (file != null) {
                    closeFirst.add(0, ConfigReloader.watch(file, built, reloadInterval, result -> { }));
                }
                return new QuotaStack(built, decideWith, closeFirst);
            } catch (RuntimeException | Error e) {
                closeAll(closeFirst);
                if (built != null) {
                    built.close();
                } else {
                    decideWith.close();
                }
                throw e;
            }
        }
    }
}
