package example;

import dev.quota.core.QuotaConfig;
import dev.quota.core.QuotaService;
import dev.quota.core.config.ConfigReloader;
import dev.quota.core.config.QuotaConfigLoader;
import dev.quota.jaxrs.QuotaFeature;
import dev.quota.jaxrs.admin.QuotaAdminResource;
import dev.quota.redis.RedisStore;
import java.nio.file.Path;
import org.jboss.resteasy.core.ResteasyDeploymentImpl;
import org.jboss.resteasy.plugins.server.undertow.UndertowJaxrsServer;
import org.jboss.resteasy.spi.ResteasyDeployment;

/** The README's "Use it in your service", pasted into a RESTEasy 7.0 service on Undertow. */
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

        ResteasyDeployment deployment = new ResteasyDeploymentImpl();
        deployment.getActualResourceClasses().add(ExportResource.class);
        deployment.getActualResourceClasses().add(TransferResource.class);
        deployment.getActualResourceClasses().add(ImportResource.class);
        deployment.getActualResourceClasses().add(StatementResource.class);
        deployment.getActualResourceClasses().add(ArchiveResource.class);
        deployment.getResources().add(admin);
        deployment.getProviders().add(feature);
        UndertowJaxrsServer server = new UndertowJaxrsServer().setHostname("127.0.0.1").setPort(port);
        server.deploy(server.undertowDeployment(deployment, "/").setDeploymentName("bank").setContextPath("/")
                .setClassLoader(Main.class.getClassLoader()));
        server.start();
        Runtime.getRuntime().addShutdownHook(new Thread(server::stop));
        System.out.println("listening on http://127.0.0.1:" + port + "/");
        Thread.currentThread().join();
    }
}
