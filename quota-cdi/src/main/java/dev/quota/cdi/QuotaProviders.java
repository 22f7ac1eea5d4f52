package dev.quota.cdi;

import dev.quota.core.QuotaService;
import dev.quota.jaxrs.QuotaFeature;
import dev.quota.jaxrs.admin.QuotaAdminResource;
import jakarta.ws.rs.core.Feature;
import jakarta.ws.rs.core.FeatureContext;
import jakarta.ws.rs.ext.Provider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Enforces the application's quotas on every resource method without a line of code: the runtime
 * finds this provider in the WAR ({@code WEB-INF/lib}) when it scans for providers, which it does
 * for an {@code Application} subclass that lists no classes ({@code @ApplicationPath("api")
 * public class Api extends Application {}}). An application that lists its classes registers this
 * one too.
 *
 * <p>Configures {@link QuotaFeature} with the service {@link QuotaExtension} built and the
 * {@code quota.caller} resolver; with an admin token, {@link QuotaAdminResource} at {@code /admin};
 * and the filter behind {@link QuotaRequest}.
 */
@Provider
public final class QuotaProviders implements Feature {

    private static final Logger log = LoggerFactory.getLogger(QuotaProviders.class);

    /** For the runtime. */
    public QuotaProviders() {
    }

    /**
     * @throws IllegalStateException if the application has no CDI container (no {@code beans.xml}
     *                               nor bean-defining annotation anywhere) or has stopped
     * @throws InvalidSettingsException if a setting is wrong
     */
    @Override
    public boolean configure(FeatureContext context) {
        Quotas quotas;
        try {
            quotas = QuotaProducers.current();
        } catch (IllegalStateException e) {
            throw new IllegalStateException("quota: no CDI container for this application (" + e.getMessage()
                    + "); quota-cdi builds the quota service in CDI: add WEB-INF/beans.xml, or register"
                    + " QuotaFeature.builder(service) yourself", e);
        }
        QuotaService service = quotas.service();
        // configured here rather than registered: a runtime may drop a feature a feature registers
        // (Quarkus REST takes only filters, interceptors and exception mappers); QuotaFeature fails
        // start-up if the runtime dropped one of its own
        QuotaFeature.builder(service).callerResolver(quotas.callerResolver()).build().configure(context);
        if (quotas.adminToken() != null) {
            // a runtime that scanned WEB-INF/lib has the class already and takes it from CDI (the
            // same instance); one that did not serves this
            QuotaAdminResource admin = quotas.adminResource();
            context.register(admin);
            if (!context.getConfiguration().isRegistered(admin)) {
                log.warn("quota: this Jakarta REST runtime ({}) does not take a resource from a feature, so the admin"
                        + " API is not served at /admin", context.getClass().getName());
            }
        }
        // the feature registered the filter behind QuotaRequest: every feature over quota-cdi's service does
        log.info("quota: on, every resource method of this application is counted: {}", quotas.summary());
        return true;
    }
}
