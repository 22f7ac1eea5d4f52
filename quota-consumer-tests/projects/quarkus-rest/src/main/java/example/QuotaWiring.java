package example;

import dev.quota.core.QuotaConfig;
import dev.quota.core.QuotaService;
import dev.quota.core.config.ConfigReloader;
import dev.quota.core.config.QuotaConfigLoader;
import dev.quota.jaxrs.QuotaFeature;
import dev.quota.redis.RedisStore;
import jakarta.ws.rs.core.Feature;
import jakarta.ws.rs.core.FeatureContext;
import jakarta.ws.rs.ext.Provider;
import java.nio.file.Path;

/** The README's "Use it in your service" on Quarkus REST: its Java snippet inside a provider. */
@Provider
public class QuotaWiring implements Feature {
    @Override
    public boolean configure(FeatureContext context) {
        // README snippet "java", verbatim
        QuotaConfig config = QuotaConfigLoader.load(Path.of("plans.yaml"));   // every error, with its path
        QuotaService quota = QuotaService.builder()
                .store(RedisStore.builder().uri(System.getenv("REDIS_URL")).build())   // redis://host:6379
                .config(config)
                .build();
        ConfigReloader.watch(Path.of("plans.yaml"), quota);                  // edits apply within a second
        QuotaFeature feature = QuotaFeature.builder(quota).build();           // X-API-Key, else the client address
        // the "Build the service and the feature" snippet above, then:
        return feature.configure(context);        // in place: Quarkus REST takes no feature from a feature
    }
}
