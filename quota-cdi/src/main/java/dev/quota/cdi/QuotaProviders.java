package dev.quota.cdi;

import dev.quota.core.QuotaService;
import dev.quota.jaxrs.QuotaAdminResource;
import dev.quota.jaxrs.QuotaFeature;
import jakarta.enterprise.inject.spi.CDI;
import jakarta.ws.rs.core.Feature;
import jakarta.ws.rs.core.FeatureContext;
import jakarta.ws.rs.ext.Provider;

/**
 * Enforces the application's quotas on every resource method without a line of code: the runtime
 * finds this provider in the WAR ({@code WEB-INF/lib}) when it scans for providers, which it does
 * for an {@code Application} subclass that lists no classes ({@code @ApplicationPath("api")
 * public class Api extends Application {}}). An application that lists its classes registers this
 * one too.
 *
 * <p>Registers {@link QuotaFeature} with the service {@link QuotaExtension} built and the
 * {@code quota.caller} resolver; with an admin token, {@link QuotaAdminResource} at {@code /admin};
 * and the filter behind {@link QuotaRequest}.
 */
@Provider
public final class QuotaProviders implements Feature {

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
        context.register(QuotaFeature.builder(service).callerResolver(quotas.callerResolver()).build());
        if (quotas.adminToken() != null) {
            // a runtime that scanned WEB-INF/lib has the class already and takes it from CDI (the
            // same instance); one that did not serves this
            context.register(quotas.adminResource());
        }
        context.register(new RequestViewFilter(CDI.current().select(QuotaRequest.class).get()),
                QuotaFeature.PRIORITY + 1);
        return true;
    }
}
