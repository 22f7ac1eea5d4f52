package dev.quota.cdi;

import dev.quota.core.Customer;
import dev.quota.core.QuotaDecision;
import dev.quota.core.QuotaListener;
import dev.quota.core.QuotaService;
import dev.quota.core.Settlement;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * quota's OpenTelemetry metrics and span attributes, when {@code quota-opentelemetry} and the
 * OpenTelemetry API are both on the application's class path (the API comes with the server's
 * MicroProfile Telemetry, Quarkus's extension, or the application's SDK) and no
 * {@code OpenTelemetryQuotaListener} bean of the application's already publishes them. Both are
 * optional dependencies of quota-cdi: without them this class touches none of their types.
 *
 * <p>A listener that makes quota-opentelemetry's on the first event it is told, through the
 * application's {@code OpenTelemetry} bean, else {@code GlobalOpenTelemetry}: the service is built
 * as the Jakarta REST application starts, which on Quarkus is before the server's
 * {@code OpenTelemetry} bean can be made. The first event is a request's decision; the instruments
 * read from the service (breaker state, config version, top customers) are published from then on.
 * Made by one caller under this object's lock; read without it once made ({@code volatile}).
 */
final class Telemetry implements QuotaListener {

    static final String API = "io.opentelemetry.api.OpenTelemetry";
    static final String LISTENER = "dev.quota.opentelemetry.OpenTelemetryQuotaListener";

    private static final Logger log = LoggerFactory.getLogger(Telemetry.class);

    private final AppBeans beans;
    private @Nullable QuotaService service;
    private volatile @Nullable QuotaListener delegate;
    private boolean closed;

    private Telemetry(AppBeans beans) {
        this.beans = beans;
    }

    /** The listener to add, or null when either module is missing or the application registers its own. */
    static @Nullable Telemetry detect(AppBeans beans, List<QuotaListener> listeners) {
        if (!present(API) || !present(LISTENER) || OpenTelemetryWiring.anyOurs(listeners)) {
            return null;
        }
        return new Telemetry(beans);
    }

    /** The built service, whose breaker state, config version and top customers are published too. */
    synchronized void observe(QuotaService built) {
        this.service = built;
        QuotaListener made = delegate;
        if (made != null) {
            OpenTelemetryWiring.observe(made, built);
        }
    }

    /** Stops the instruments read at collection: the application's meter outlives it on a server. */
    synchronized void close() {
        closed = true;
        QuotaListener made = delegate;
        if (made != null) {
            OpenTelemetryWiring.close(made);
        }
    }

    /** For the start-up log: where the metrics go. */
    String describe() {
        return "OpenTelemetry (the application's OpenTelemetry bean, else GlobalOpenTelemetry)";
    }

    /** quota-opentelemetry's listener, made on the first call; null when it cannot be made yet, or closed. */
    private @Nullable QuotaListener delegate() {
        QuotaListener made = delegate;
        return made != null ? made : make();
    }

    private synchronized @Nullable QuotaListener make() {
        QuotaListener made = delegate;
        if (made != null || closed) {
            return made;
        }
        try {
            made = OpenTelemetryWiring.listener(beans.bean(API));
        } catch (RuntimeException e) {
            // the container cannot make the bean yet (Quarkus before its runtime start): the next event tries again
            log.debug("quota: the application's OpenTelemetry bean is not available yet", e);
            return null;
        }
        QuotaService built = service;
        if (built != null) {
            OpenTelemetryWiring.observe(made, built);
        }
        delegate = made;
        return made;
    }

    @Override
    public void onDecision(Customer customer, @Nullable String limits, QuotaDecision decision, Duration elapsed) {
        QuotaListener listener = delegate();
        if (listener != null) {
            listener.onDecision(customer, limits, decision, elapsed);
        }
    }

    @Override
    public void onRelease(QuotaDecision decision) {
        QuotaListener listener = delegate();
        if (listener != null) {
            listener.onRelease(decision);
        }
    }

    @Override
    public void onFailedKey(QuotaDecision decision) {
        QuotaListener listener = delegate();
        if (listener != null) {
            listener.onFailedKey(decision);
        }
    }

    @Override
    public void onStoreFailure(RuntimeException e) {
        QuotaListener listener = delegate();
        if (listener != null) {
            listener.onStoreFailure(e);
        }
    }

    @Override
    public void onFallback(boolean active) {
        QuotaListener listener = delegate();
        if (listener != null) {
            listener.onFallback(active);
        }
    }

    @Override
    public void onSettle(Settlement settlement) {
        QuotaListener listener = delegate();
        if (listener != null) {
            listener.onSettle(settlement);
        }
    }

    @Override
    public void onReload(boolean applied, long version) {
        QuotaListener listener = delegate();
        if (listener != null) {
            listener.onReload(applied, version);
        }
    }

    private static boolean present(String className) {
        try {
            Class.forName(className, false, Telemetry.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}
