package example;

import dev.quota.core.QuotaConfig;
import dev.quota.core.QuotaService;
import dev.quota.core.config.ConfigReloader;
import dev.quota.core.config.QuotaConfigLoader;
import dev.quota.jaxrs.QuotaFeature;
import dev.quota.jaxrs.admin.QuotaAdminResource;
import dev.quota.redis.RedisStore;
import java.net.URI;
import java.nio.file.Path;
import org.glassfish.grizzly.http.server.HttpServer;
import org.glassfish.jersey.grizzly2.httpserver.GrizzlyHttpServerFactory;
import org.glassfish.jersey.server.ResourceConfig;

/** The README's "Use it in your service", pasted into a Jersey 3.1 service on Grizzly. */
public final class Main {

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(System.getenv().getOrDefault("PORT", "8080"));

        // README snippet "java", verbatim
        QuotaConfig config = QuotaConfigLoader.load(Path.of("plans.yaml"));   // every error, with its path
        QuotaService quota = QuotaService.builder()
                .store(RedisStore.builder().uri(System.getenv("REDIS_URL")).build())   // redis://host:6379
                .config(config)
                .build();
        ConfigReloader.watch(Path.of("plans.yaml"), quota);                  // edits apply within a second
        QuotaFeature feature = QuotaFeature.builder(quota).build();           // X-API-Key, else the client address
        // end of the README snippet

        // the admin API, registered next to the feature as docs/security.md says
        QuotaAdminResource admin = QuotaAdminResource.builder(quota, System.getenv("QUOTA_ADMIN_TOKEN")).build();

        ResourceConfig app = new ResourceConfig(ExportResource.class, TransferResource.class, ImportResource.class, StatementResource.class, ArchiveResource.class).register(feature).register(admin);
        HttpServer server = GrizzlyHttpServerFactory.createHttpServer(URI.create("http://127.0.0.1:" + port + "/"), app);
        Runtime.getRuntime().addShutdownHook(new Thread(server::shutdownNow));
        System.out.println("listening on http://127.0.0.1:" + port + "/");
        Thread.currentThread().join();
    }
}
