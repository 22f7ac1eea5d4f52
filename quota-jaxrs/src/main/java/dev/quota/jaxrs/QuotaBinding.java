package dev.quota.jaxrs;

import dev.quota.core.QuotaService;
import dev.quota.jaxrs.internal.ResourceChecks;
import jakarta.ws.rs.BeanParam;
import jakarta.ws.rs.CookieParam;
import jakarta.ws.rs.FormParam;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.MatrixParam;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.container.Suspended;
import jakarta.ws.rs.core.Context;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the quota filter does for one resource method, worked out once from its annotations: count
 * it on its {@link EndpointRule}, hand it to its resource's own check ({@link ResourceChecks}: the
 * admin API's token check), or nothing ({@link Unlimited}). Built by {@link QuotaBindings}, at start-up where the runtime runs
 * dynamic features, else on the method's first request.
 */
final class QuotaBinding {

    private static final Logger log = LoggerFactory.getLogger(QuotaBinding.class);
    private static final Set<Class<? extends Annotation>> NOT_THE_ENTITY = Set.of(PathParam.class, QueryParam.class,
            HeaderParam.class, CookieParam.class, MatrixParam.class, FormParam.class, BeanParam.class, Context.class,
            Suspended.class);

    /** The binding of {@link Unlimited} methods: nothing to count. */
    static final QuotaBinding UNLIMITED = new QuotaBinding(null, null);

    private final @Nullable EndpointRule endpoint;
    private final ResourceChecks.@Nullable Check check;

    private QuotaBinding(@Nullable EndpointRule endpoint, ResourceChecks.@Nullable Check check) {
        this.endpoint = endpoint;
        this.check = check;
    }

    /** The endpoint to count the request on; null for a checked or unlimited method. */
    @Nullable EndpointRule endpoint() {
        return endpoint;
    }

    /** The resource's own check of the method ({@link ResourceChecks}); null for any other. */
    ResourceChecks.@Nullable Check check() {
        return check;
    }

    /**
     * The binding of {@code method} as served by {@code resourceClass}.
     *
     * @throws IllegalStateException if an {@link AmountLimit} method takes no {@link QuotaAmount} body
     */
    static QuotaBinding of(Class<?> resourceClass, Method method, QuotaService service) {
        ResourceChecks.Check check = ResourceChecks.of(resourceClass, method);
        if (check != null) {
            // not a customer's traffic, and must work while a customer is limited: its own check, no quota
            return new QuotaBinding(null, check);
        }
        if (resourceClass.isAnnotationPresent(Unlimited.class) || method.isAnnotationPresent(Unlimited.class)) {
            // probes are not a customer's traffic either
            return UNLIMITED;
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
        }
        return new QuotaBinding(endpoint, null);
    }

    /** An {@link AmountLimit} method must take a {@link QuotaAmount} body. */
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
