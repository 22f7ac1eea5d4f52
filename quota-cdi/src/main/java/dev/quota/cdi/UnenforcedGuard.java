package dev.quota.cdi;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ContextNotActiveException;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;
import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Refuses 503 a resource method whose request quota's filters did not see: the application is
 * wired to quota-cdi (this module is in it) but its Jakarta REST runtime never registered
 * {@link QuotaProviders} nor a {@code QuotaFeature} built over quota-cdi's {@code QuotaService}
 * (either registers the filter behind {@link QuotaRequest}), so the request would be served unlimited. Logged at ERROR with the
 * reason once per method. Only resource methods (those with an HTTP method annotation) are checked;
 * a call outside a request (no request scope) is let through, as nothing can be told there.
 */
@QuotaGuarded
@Interceptor
@Priority(Interceptor.Priority.PLATFORM_BEFORE + 100)
class UnenforcedGuard {

    private static final Logger log = LoggerFactory.getLogger(UnenforcedGuard.class);

    /** The problem body of a refused request, here and in {@link ListedApplications}. */
    static final String PROBLEM = "{\"type\":\"urn:quota:problem:quota-not-enforced\",\"title\":\"Service Unavailable\","
            + "\"status\":503,\"detail\":\"The quota of this request cannot be enforced.\"}";

    /** The methods already logged, so that a flood of refused requests does not flood the log. */
    private static final Set<Method> logged = ConcurrentHashMap.newKeySet();

    private final QuotaRequest request;

    @Inject
    UnenforcedGuard(QuotaRequest request) {
        this.request = request;
    }

    @AroundInvoke
    Object check(InvocationContext invocation) throws Exception {
        Method method = invocation.getMethod();
        if (!isResourceMethod(method) || seen()) {
            return invocation.proceed();
        }
        if (logged.add(method)) {
            log.error("quota: {}.{} was called without quota's filters having seen the request, so it is refused"
                    + " 503: the Jakarta REST application does not register dev.quota.cdi.QuotaProviders (an"
                    + " Application that lists its classes must list it too, or the runtime did not discover it), nor"
                    + " a QuotaFeature built over quota-cdi's QuotaService",
                    method.getDeclaringClass().getName(), method.getName());
        }
        throw new WebApplicationException(Response.status(503).type("application/problem+json")
                .entity(PROBLEM).build());
    }

    private boolean seen() {
        try {
            return request.seen();
        } catch (ContextNotActiveException noRequest) {
            return true;
        }
    }

    /** Whether {@code method}, or the method it implements, carries an HTTP method annotation. */
    private static boolean isResourceMethod(Method method) {
        for (Class<?> type = method.getDeclaringClass(); type != null && type != Object.class;
             type = type.getSuperclass()) {
            if (hasHttpMethod(type, method)) {
                return true;
            }
            for (Class<?> implemented : type.getInterfaces()) {
                if (hasHttpMethod(implemented, method)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean hasHttpMethod(Class<?> type, Method method) {
        try {
            for (Annotation annotation : type.getDeclaredMethod(method.getName(), method.getParameterTypes())
                    .getAnnotations()) {
                if (annotation.annotationType().isAnnotationPresent(HttpMethod.class)) {
                    return true;
                }
            }
            return false;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }
}
