package dev.quota.cdi;

import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.spi.AfterDeploymentValidation;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.enterprise.inject.spi.BeforeBeanDiscovery;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.enterprise.inject.spi.ProcessAnnotatedType;
import jakarta.enterprise.inject.spi.WithAnnotations;
import jakarta.enterprise.util.AnnotationLiteral;
import jakarta.ws.rs.Path;
import java.util.List;

/**
 * On a container that runs portable extensions (Weld: Payara, WildFly, Helidon): adds the module's
 * beans to the application, {@link QuotaProviders} among them (Helidon registers the providers that
 * are beans); builds the quota service as the deployment is validated, so that a bad setting or
 * plans file is reported as a deployment problem naming the setting; and marks every resource class
 * {@link QuotaGuarded}, so that a resource method whose request quota's filters did not see is
 * refused.
 *
 * <p>The jar is no bean archive of its own (no {@code beans.xml}): on Payara, a library's bean
 * archive is one whose beans this extension cannot reach. A CDI Lite container (Quarkus), which runs
 * no portable extension, finds the same beans in the jar's Jandex index ({@link QuotaProducers}
 * then starts on the {@code Startup} event, {@link QuotaLiteExtension} adds the binding).
 */
public final class QuotaExtension implements Extension {

    /** The module's beans, added by this extension. */
    private static final List<Class<?>> BEANS = List.of(QuotaProducers.class, QuotaRequest.class, UnenforcedGuard.class,
            QuotaProviders.class);

    /** For the container's service loader. */
    public QuotaExtension() {
    }

    void addBeans(@Observes BeforeBeanDiscovery discovery) {
        for (Class<?> bean : BEANS) {
            discovery.addAnnotatedType(bean, bean.getName());
        }
    }

    /**
     * Puts {@link QuotaGuarded} on every resource class, unless {@link QuotaLiteExtension} already
     * did (a Weld that translates build compatible extensions runs both).
     */
    <T> void guard(@Observes @WithAnnotations(Path.class) ProcessAnnotatedType<T> type) {
        if (type.getAnnotatedType().isAnnotationPresent(Path.class)
                && !type.getAnnotatedType().isAnnotationPresent(QuotaGuarded.class)) {
            type.configureAnnotatedType().add(Guarded.INSTANCE);
        }
    }

    void start(@Observes AfterDeploymentValidation validation, BeanManager beans) {
        Instance<QuotaProducers> producers = beans.createInstance().select(QuotaProducers.class);
        if (!producers.isResolvable()) {
            // Payara hands an extension of WEB-INF/lib a bean manager that does not see the
            // module's beans: the service starts on the Startup event instead, failing the
            // deployment there just the same
            return;
        }
        try {
            producers.get().quotas();
        } catch (RuntimeException e) {
            validation.addDeploymentProblem(e);
        }
    }

    /** {@link QuotaGuarded} as a value, to add. */
    private static final class Guarded extends AnnotationLiteral<QuotaGuarded> implements QuotaGuarded {
        static final Guarded INSTANCE = new Guarded();
        private static final long serialVersionUID = 1L;
    }
}
