package dev.quota.cdi;

import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.spi.AfterDeploymentValidation;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.enterprise.inject.spi.BeforeBeanDiscovery;
import jakarta.enterprise.inject.spi.Extension;

/**
 * Registers the module's beans and builds the quota service as the application starts, so that a
 * bad setting or plans file fails the deployment with a message naming the setting, instead of
 * the first request. Loaded by the container from {@code META-INF/services}; the jar needs no
 * {@code beans.xml} (its beans are added here, whatever discovery mode the application uses).
 */
public final class QuotaExtension implements Extension {

    /** For the container's service loader. */
    public QuotaExtension() {
    }

    void addBeans(@Observes BeforeBeanDiscovery discovery) {
        discovery.addAnnotatedType(QuotaProducers.class, QuotaProducers.class.getName());
        discovery.addAnnotatedType(QuotaRequest.class, QuotaRequest.class.getName());
    }

    void start(@Observes AfterDeploymentValidation validation, BeanManager beans) {
        try {
            beans.createInstance().select(QuotaProducers.class).get().quotas();
        } catch (RuntimeException e) {
            validation.addDeploymentProblem(e);
        }
    }
}
