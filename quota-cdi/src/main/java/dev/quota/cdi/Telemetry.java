package dev.quota.cdi;

import dev.quota.core.QuotaListener;
import dev.quota.core.QuotaService;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Whether the application publishes quota's OpenTelemetry metrics and span attributes: when
 * {@code quota-opentelemetry} and the OpenTelemetry API are both on its class path (the API comes
 * with the server's MicroProfile Telemetry, Quarkus's extension, or the application's SDK), and no
 * {@code OpenTelemetryQuotaListener} bean of the application's already does. Both are optional
 * dependencies of quota-cdi: without them this class touches none of their types.
 */
final class Telemetry {

    static final String API = "io.opentelemetry.api.OpenTelemetry";
    static final String LISTENER = "dev.quota.opentelemetry.OpenTelemetryQuotaListener";

    private final QuotaListener listener;
    private final String source;

    private Telemetry(QuotaListener listener, String source) {
        this.listener = listener;
        this.source = source;
    }

    /**
     * The listener to add, publishing through the application's {@code OpenTelemetry} bean (the
     * server's) or, without one, {@code GlobalOpenTelemetry}; null when either module is missing or
     * the application registers its own.
     */
    static @Nullable Telemetry detect(AppBeans beans, List<QuotaListener> listeners) {
        if (!present(API) || !present(LISTENER) || OpenTelemetryWiring.anyOurs(listeners)) {
            return null;
        }
        Object bean = beans.bean(API);
        return new Telemetry(OpenTelemetryWiring.listener(bean),
                bean != null ? "the application's OpenTelemetry bean" : "GlobalOpenTelemetry");
    }

    QuotaListener listener() {
        return listener;
    }

    /** Publishes {@code service}'s store breaker state too. */
    void observe(QuotaService service) {
        OpenTelemetryWiring.observe(listener, service);
    }

    /** Stops the observed instruments: the application's meter outlives it on a server. */
    void close() {
        OpenTelemetryWiring.close(listener);
    }

    /** For the start-up log: where the metrics go. */
    String describe() {
        return "OpenTelemetry through " + source;
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
