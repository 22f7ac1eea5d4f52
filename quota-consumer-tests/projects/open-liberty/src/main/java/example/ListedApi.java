package example;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;
import java.util.Set;

/**
 * Wired wrongly on purpose: an application that lists its classes and forgets quota's provider
 * (dev.quota.cdi.QuotaProviders). Its requests must be refused, never served unlimited.
 */
@ApplicationPath("listed")
public class ListedApi extends Application {
    @Override
    public Set<Class<?>> getClasses() {
        return Set.of(ExportResource.class, TransferResource.class);
    }
}
