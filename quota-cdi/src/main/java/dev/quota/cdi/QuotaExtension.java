package dev.quota.cdi;

import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.spi.AfterDeploymentValidation;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.enterprise.inject.spi.Extension;

/**
 * On a container that runs portable extensions (Weld: Payara, WildFly, Helidon), builds the quota
 * service as the deployment is validated, so that a bad setting or plans file is reported as a
 * deployment problem naming the setting. The module's beans are found by discovery (the jar's
 * {@code META-INF/beans.xml}); on a CDI Lite container (Quarkus) {@link QuotaProducers} starts the
 * same way on the {@code Startup} event.
 */
public final class QuotaExtension implements Extension {

    /** For the container's service loader. */
    public QuotaExtension() {
    }

    void start(@Observes AfterDeploymentValidation validation, BeanManager beans) {
        try {
            beans.createInstance().select(QuotaProducers.class).get().quotas();
        } catch (RuntimeException e) {
            validation.addDeploymentProblem(e);
        }
    }
}
