package dev.quota.jaxrs;

import dev.quota.core.QuotaService;
import jakarta.ws.rs.BeanParam;
import jakarta.ws.rs.CookieParam;
import jakarta.ws.rs.FormParam;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.MatrixParam;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.container.DynamicFeature;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.container.Suspended;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.FeatureContext;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives every resource method its own quota filter, which knows the method's rule, and an
 * {@link AmountInterceptor} to methods marked {@link AmountLimit}: called once per resource method
 * when the application starts. Methods or classes marked {@link Unlimited} get none;
 * {@link QuotaAdminResource}'s methods get its token check instead ({@link AdminFilter}).
 */
final class QuotaBinding implements DynamicFeature {

    private static final Logger log = LoggerFactory.getLogger(QuotaBinding.class);
    private static final Set<Class<? extends Annotation>> NOT_THE_ENTITY = Set.of(PathParam.class, QueryParam.class,
            HeaderParam.class, CookieParam.class, MatrixParam.class, FormParam.class, BeanParam.class, Context.class,
            Suspended.class);

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
        if (resourceClass == null || method == null) {
            return;
        }
        if (resourceClass == QuotaAdminResource.class) {
            // not a customer's traffic, and must work while a customer is limited: the admin token, no quota
            context.register(new AdminFilter(QuotaAdminResource.action(method)), AdminFilter.PRIORITY);
            return;
        }
        if (resourceClass.isAnnotationPresent(Unlimited.class) || method.isAnnotationPresent(Unlimited.class)) {
            // probes are not a customer's traffic either
            return;
        }
        EndpointRule endpoint = EndpointRule.of(resourceClass, method);
        String annotated = endpoint.annotated();
        if (annotated != null && service.config().rule(annotated).isEmpty()) {
            // Not fatal: a reload may add the rule. Until then the endpoint answers 503.
            log.warn("{} is bound by @Quota to rule \"{}\", which the active config does not define",
                    endpoint.describe(), annotated);
        }
        String amounts = endpoint.amountLimits();
        if (amounts != null) {
            requireAmountEntity(endpoint, method, amounts);
            if (!service.config().amounts().containsKey(amounts)) {
                log.warn("{} is bound by @AmountLimit to amount limits \"{}\", which the active config does not"
                        + " define", endpoint.describe(), amounts);
            }
            context.register(new AmountInterceptor(service, amounts));
        }
        context.register(new QuotaRequestFilter(service, resolver, clientAddress, endpoint), QuotaFeature.PRIORITY);
    }

    /** An {@link AmountLimit} method must take a {@link QuotaAmount} body: a mistake here fails start-up. */
    private static void requireAmountEntity(EndpointRule endpoint, Method method, String amounts) {
        for (Parameter parameter : method.getParameters()) {
            boolean annotated = false;
            for (Annotation annotation : parameter.getAnnotations()) {
                annotated |= NOT_THE_ENTITY.contains(annotation.annotationType());
            }
            if (!annotated) {
                if (QuotaAmount.class.isAssignableFrom(parameter.getType())) {
                    return;
                }
                throw new IllegalStateException(endpoint.describe() + " is marked @AmountLimit(\"" + amounts
                        + "\") but its body type " + parameter.getType().getName() + " does not implement "
                        + QuotaAmount.class.getName());
            }
        }
        throw new IllegalStateException(endpoint.describe() + " is marked @AmountLimit(\"" + amounts
                + "\") but takes no body to read the amount from");
    }
}
