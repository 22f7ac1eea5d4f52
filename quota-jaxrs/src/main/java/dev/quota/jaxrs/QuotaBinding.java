package dev.quota.jaxrs;

import dev.quota.core.QuotaService;
import jakarta.ws.rs.container.DynamicFeature;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.FeatureContext;
import java.lang.reflect.Method;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives every resource method its own quota filter, which knows the method's rule: called once
 * per resource method when the application starts. {@link QuotaAdminResource} and methods or
 * classes marked {@link Unlimited} get none.
 */
final class QuotaBinding implements DynamicFeature {

    private static final Logger log = LoggerFactory.getLogger(QuotaBinding.class);

    private final QuotaService service;
    private final CallerResolver resolver;
    private final ClientAddress clientAddress;

    QuotaBinding(QuotaService service, CallerResolver resolver, ClientAddress clientAddress) {
        this.service = service;
        this.resolver = resolver;
        this.clientAddress = clientAddress;
    }

    @Override
    public void configure(ResourceInfo resourceInfo, FeatureContext context) {
        Class<?> resourceClass = resourceInfo.getResourceClass();
        Method method = resourceInfo.getResourceMethod();
        if (resourceClass == null || method == null || resourceClass == QuotaAdminResource.class
                || resourceClass.isAnnotationPresent(Unlimited.class) || method.isAnnotationPresent(Unlimited.class)) {
            // the admin API and probes are not a customer's traffic, and must work while a customer is limited
            return;
        }
        EndpointRule endpoint = EndpointRule.of(resourceClass, method);
        String annotated = endpoint.annotated();
        if (annotated != null && service.config().rule(annotated).isEmpty()) {
            // Not fatal: a reload may add the rule. Until then the endpoint answers 503.
            log.warn("{} is bound by @Quota to rule \"{}\", which the active config does not define",
                    endpoint.describe(), annotated);
        }
        context.register(new QuotaRequestFilter(service, resolver, clientAddress, endpoint), QuotaFeature.PRIORITY);
    }
}
