package example;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;
import java.util.Set;

/** Lists its resources but forgets dev.quota.cdi.QuotaProviders: quota must refuse, not serve unlimited. */
@ApplicationPath("/")
public class Api extends Application {
    @Override
    public Set<Class<?>> getClasses() {
        return Set.of(ExportResource.class, TransferResource.class);
    }
}
