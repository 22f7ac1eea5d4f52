package dev.quota.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quota.core.QuotaService;
import dev.quota.core.config.QuotaConfigLoader;
import dev.quota.core.store.InMemoryStore;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.nio.file.Path;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.Test;

/**
 * The producer docs/runtimes.md shows for an application that builds its own {@link QuotaService}
 * without this module: {@code @Singleton} works; {@code @ApplicationScoped}, the one most CDI code
 * reaches for, fails the deployment on Weld (WELD-001437), because a normal scope hands out a
 * proxy and {@code QuotaService} is final.
 */
class QuotaServiceProducerTest {

    static QuotaService service() {
        return QuotaService.builder().store(InMemoryStore.builder().build())
                .config(QuotaConfigLoader.load(Path.of("src/test/resources/plans.yaml"))).build();
    }

    public static class SingletonProducer {
        @Produces
        @Singleton
        QuotaService quotaService() {
            return service();
        }

        void close(@Disposes QuotaService service) {
            service.close();
        }
    }

    public static class ApplicationScopedProducer {
        @Produces
        @ApplicationScoped
        QuotaService quotaService() {
            return service();
        }
    }

    @ApplicationScoped
    public static class Resource {
        @Inject
        QuotaService quotas;

        String plans() {
            return String.join(",", quotas.config().plans().keySet());
        }
    }

    /** Weld as a Jakarta EE server runs it: SE's relaxed construction off. */
    private static Weld weld(Class<?> producer) {
        return new Weld().disableDiscovery().property("org.jboss.weld.construction.relaxed", false)
                .addBeanClasses(producer, Resource.class);
    }

    @Test
    void singletonProducer_isInjected() {
        try (WeldContainer container = weld(SingletonProducer.class).initialize()) {
            assertThat(container.select(Resource.class).get().plans()).contains("anonymous", "small");
        }
    }

    @Test
    void applicationScopedProducer_failsTheDeployment_becauseQuotaServiceIsFinal() {
        assertThatThrownBy(() -> weld(ApplicationScopedProducer.class).initialize().close())
                .hasMessageContaining("WELD-001410: The injection point has non-proxyable dependencies")
                .hasStackTraceContaining("WELD-001437: Bean type class dev.quota.core.QuotaService is not proxyable"
                        + " because it is final");
    }
}
