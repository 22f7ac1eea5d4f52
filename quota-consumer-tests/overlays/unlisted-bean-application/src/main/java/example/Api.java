package example;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;
import java.util.Set;

/**
 * A CDI bean (so Helidon registers it as it is) that lists its resources but forgets
 * dev.quota.cdi.QuotaProviders: quota must refuse, not serve unlimited.
 */
@ApplicationPath("/")
@ApplicationScoped
public class Api extends Application {
    @Override
    public Set<Class<?>> getClasses() {
        return Set.of(ExportResource.class, TransferResource.class);
    }
}
