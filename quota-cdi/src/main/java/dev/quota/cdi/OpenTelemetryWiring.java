package dev.quota.cdi;

import dev.quota.core.QuotaListener;
import dev.quota.core.QuotaService;
import dev.quota.opentelemetry.OpenTelemetryQuotaListener;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The code that names quota-opentelemetry's and the OpenTelemetry API's types: loaded only once
 * {@link Telemetry} has found both on the class path.
 */
final class OpenTelemetryWiring {

    private OpenTelemetryWiring() {
    }

    static boolean anyOurs(List<QuotaListener> listeners) {
        return listeners.stream().anyMatch(OpenTelemetryQuotaListener.class::isInstance);
    }

    /** A listener on {@code bean} when it is an {@code OpenTelemetry}, else on {@code GlobalOpenTelemetry}. */
    static QuotaListener listener(@Nullable Object bean) {
        OpenTelemetry openTelemetry = bean instanceof OpenTelemetry given ? given : GlobalOpenTelemetry.get();
        return OpenTelemetryQuotaListener.create(openTelemetry);
    }

    static void observe(QuotaListener listener, QuotaService service) {
        ((OpenTelemetryQuotaListener) listener).observe(service);
    }

    static void close(QuotaListener listener) {
        ((OpenTelemetryQuotaListener) listener).close();
    }
}
