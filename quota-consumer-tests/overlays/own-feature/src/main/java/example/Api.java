package example;

import dev.quota.core.QuotaService;
import dev.quota.jaxrs.QuotaFeature;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.spi.CDI;
import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The hybrid wiring: quota-cdi builds the service from settings, and the application registers a
 * QuotaFeature of its own over it, with Helidon's client address. A bean (Helidon registers an
 * Application that is one), listing its resources. It says once on stdout that its own client
 * address was asked, so the test knows its feature is the one that counts.
 */
@ApplicationPath("/")
@ApplicationScoped
public class Api extends Application {
    private static final AtomicBoolean ASKED = new AtomicBoolean();

    @Override
    public Set<Class<?>> getClasses() {
        return Set.of(ExportResource.class, ImportResource.class, StatementResource.class, TransferResource.class);
    }

    @Override
    public Set<Object> getSingletons() {
        QuotaService quotas = CDI.current().select(QuotaService.class).get();   // quota-cdi's service
        return Set.of(QuotaFeature.builder(quotas)
                .clientAddress(request -> {
                    if (ASKED.compareAndSet(false, true)) {
                        System.out.println("example: client address from the application's own QuotaFeature");
                    }
                    return request.getProperty("io.helidon.jaxrs.remote-host") instanceof String host ? host : null;
                })
                .build());
    }
}
