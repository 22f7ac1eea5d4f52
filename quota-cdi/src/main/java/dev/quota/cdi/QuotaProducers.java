package dev.quota.cdi;

import dev.quota.core.QuotaListener;
import dev.quota.core.QuotaService;
import dev.quota.core.spi.CustomerDirectory;
import dev.quota.jaxrs.QuotaAdminResource;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.inject.AmbiguousResolutionException;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.enterprise.inject.spi.CDI;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Holds the application's {@link Quotas}: built once (at start-up, by {@link QuotaExtension}),
 * closed when the container destroys this bean as the application stops. Produces the
 * {@link QuotaService} resources inject.
 */
@Singleton
class QuotaProducers {

    private final BeanManager beans;
    private @Nullable Quotas quotas;
    private boolean closed;

    @Inject
    QuotaProducers(BeanManager beans) {
        this.beans = beans;
    }

    /** The running parts of the application that calls, from its CDI container. */
    static Quotas current() {
        return CDI.current().select(QuotaProducers.class).get().quotas();
    }

    /**
     * The running parts, started on the first call.
     *
     * @throws InvalidSettingsException if a setting is wrong
     * @throws IllegalStateException    if the application has stopped
     */
    synchronized Quotas quotas() {
        if (closed) {
            throw new IllegalStateException("quota: the application has stopped; its quota service is closed");
        }
        if (quotas == null) {
            ClassLoader loader = Thread.currentThread().getContextClassLoader();
            quotas = Quotas.start(QuotaSettings.read(SettingsSource.detect()),
                    loader != null ? loader : QuotaProducers.class.getClassLoader(), new Lookup(beans));
        }
        return quotas;
    }

    /** The application's quota service: {@code @Inject QuotaService quotas}. */
    @Produces
    @Singleton
    QuotaService quotaService() {
        return quotas().service();
    }

    /**
     * The admin API for a runtime that found {@link QuotaAdminResource} by scanning
     * {@code WEB-INF/lib} and asks CDI for it (Jersey in Payara and GlassFish does): the configured
     * instance rather than one the runtime cannot construct.
     */
    @Produces
    @Dependent
    QuotaAdminResource adminResource() {
        return quotas().adminResource();
    }

    @PreDestroy
    synchronized void close() {
        closed = true;
        if (quotas != null) {
            quotas.close();
        }
    }

    /** The application's beans through the bean manager, each looked up when asked. */
    private record Lookup(BeanManager beans) implements AppBeans {
        @Override
        public @Nullable CustomerDirectory customers() {
            Instance<CustomerDirectory> directories = beans.createInstance().select(CustomerDirectory.class);
            if (directories.isUnsatisfied()) {
                return null;
            }
            try {
                return directories.get();
            } catch (AmbiguousResolutionException e) {
                throw new InvalidSettingsException(List.of("CustomerDirectory: the application has more than one"
                        + " CustomerDirectory bean; quota uses one (" + e.getMessage() + ")"));
            }
        }

        @Override
        public List<QuotaListener> listeners() {
            return beans.createInstance().select(QuotaListener.class).stream().toList();
        }

        @Override
        public @Nullable Object bean(String className) {
            Class<?> type;
            try {
                type = Class.forName(className, false, QuotaProducers.class.getClassLoader());
            } catch (ClassNotFoundException | LinkageError e) {
                return null;
            }
            Instance<?> instance = beans.createInstance().select(type);
            return instance.isResolvable() ? instance.get() : null;
        }
    }
}
