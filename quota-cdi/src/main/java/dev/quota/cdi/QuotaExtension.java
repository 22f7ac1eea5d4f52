package dev.quota.cdi;

import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.spi.AfterDeploymentValidation;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.enterprise.inject.spi.ProcessAnnotatedType;
import jakarta.enterprise.inject.spi.WithAnnotations;
import jakarta.enterprise.util.AnnotationLiteral;
import jakarta.ws.rs.Path;

/**
 * On a container that runs portable extensions (Weld: Payara, WildFly, Helidon), builds the quota
 * service as the deployment is validated, so that a bad setting or plans file is reported as a
 * deployment problem naming the setting. The module's beans are found by discovery (the jar's
 * {@code META-INF/beans.xml}); on a CDI Lite container (Quarkus) {@link QuotaProducers} starts the
 * same way on the {@code Startup} event. Also marks every resource class {@link QuotaGuarded}, so
 * that a resource method whose request quota's filters did not see is refused.
 */
public final class QuotaExtension implements Extension {

    /** For the container's service loader. */
    public QuotaExtension() {
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
