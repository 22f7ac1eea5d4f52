package dev.quota.cdi;

import dev.quota.core.QuotaListener;
import dev.quota.core.QuotaService;
import dev.quota.core.spi.CustomerDirectory;
import dev.quota.jaxrs.QuotaFeature;
import dev.quota.jaxrs.admin.QuotaAdminResource;
import dev.quota.jaxrs.internal.ServiceCompanions;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.Startup;
import jakarta.enterprise.inject.AmbiguousResolutionException;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.enterprise.inject.spi.CDI;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Holds the application's {@link Quotas}: built once, at start-up ({@code Startup} event, or
 * {@link QuotaExtension} where portable extensions run), closed when the container destroys this
 * bean as the application stops. Produces the {@link QuotaService} resources inject. Application
 * scoped and found by discovery, so that every CDI container has it, CDI Lite ones included.
 */
@ApplicationScoped
class QuotaProducers {

    // null only in the container's client proxy, which never runs a method of its own
    private final @Nullable Instance<CustomerDirectory> directories;
    private final @Nullable Instance<QuotaListener> listeners;
    private final @Nullable Instance<Object> beans;
    private final @Nullable QuotaRequest requestView;
    /** The portable extension, a bean where the container runs it (Weld), none on CDI Lite. */
    private final @Nullable Instance<QuotaExtension> portable;
    private @Nullable Quotas quotas;
    private boolean closed;

    /** For the container's client proxy. */
    QuotaProducers() {
        this(null, null, null, null, null);
    }

    @Inject
    QuotaProducers(@Nullable Instance<CustomerDirectory> directories, @Nullable Instance<QuotaListener> listeners,
                   @Nullable Instance<Object> beans, @Nullable QuotaRequest requestView,
                   @Nullable Instance<QuotaExtension> portable) {
        this.directories = directories;
        this.listeners = listeners;
        this.beans = beans;
        this.requestView = requestView;
        this.portable = portable;
    }

    /**
     * Starts the service as the application starts on a CDI Lite container (Quarkus): a bad setting
     * fails start-up, not the first request. Where portable extensions run, the Jakarta REST
     * application's start does it ({@link QuotaExtension}).
     */
    void start(@Observes Startup startup) {
        if (portable == null || portable.isUnsatisfied()) {
            quotas();
        }
    }

    /** The container's proxy to the current request's {@link QuotaRequest}. */
    QuotaRequest requestView() {
        return Objects.requireNonNull(requestView, "requestView");
    }

    /** The running parts of the application that calls, from its CDI container. */
    static Quotas current() {
        return producers().quotas();
    }

    /** This bean, from the CDI container of the application that calls. */
    static QuotaProducers producers() {
        return CDI.current().select(QuotaProducers.class).get();
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
                    loader != null ? loader : QuotaProducers.class.getClassLoader(),
                    new Lookup(Objects.requireNonNull(directories, "directories"),
                            Objects.requireNonNull(listeners, "listeners"), Objects.requireNonNull(beans, "beans")));
            // every QuotaFeature over this service hands its requests to the request view, the one
            // QuotaProviders configures and one the application built itself: both enforce
            QuotaRequest view = requestView();
            ServiceCompanions.add(quotas.service(), () -> new RequestViewFilter(view), QuotaFeature.PRIORITY + 1);
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

    /** The application's beans through the container, each looked up when asked. */
    private record Lookup(Instance<CustomerDirectory> directories, Instance<QuotaListener> listenerBeans,
                          Instance<Object> beans) implements AppBeans {
        @Override
        public @Nullable CustomerDirectory customers() {
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
            return listenerBeans.stream().toList();
        }

        @Override
        public @Nullable Object bean(String className) {
            Class<?> type;
            try {
                type = Class.forName(className, false, QuotaProducers.class.getClassLoader());
            } catch (ClassNotFoundException | LinkageError e) {
                return null;
            }
            Instance<?> instance = beans.select(type);
            return instance.isResolvable() ? instance.get() : null;
        }
    }
}
