package dev.quota.jaxrs.internal;

import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ResourceInfo;
import java.lang.reflect.Method;
import org.jspecify.annotations.Nullable;

/**
 * The resource method a request matched, as the quota filter learns it: from the
 * {@link ResourceInfo} the runtime injected into the filter (Jersey, RESTEasy), else from the
 * request itself on Quarkus REST, which injects nothing into a filter a feature registered but
 * carries the method in its request context
 * ({@code ResteasyReactiveContainerRequestContext.getServerRequestContext().getResteasyReactiveResourceInfo()}),
 * read through reflection ({@link QuarkusRest}) so that this module needs no Quarkus jar.
 */
public final class ResourceMethods {

    static final String QUARKUS_REQUEST = QuarkusRest.REQUEST;

    private ResourceMethods() {
    }

    /**
     * The matched method of {@code request}, or null when neither the runtime's injection nor the
     * request tells it.
     *
     * @param injected the filter's injected {@code @Context ResourceInfo}, or null when the runtime injected none
     */
    public static @Nullable ResourceInfo matched(ContainerRequestContext request, @Nullable ResourceInfo injected) {
        if (injected != null) {
            // the injected one is a proxy that looks the request up on every call: asked once each
            Method method = injected.getResourceMethod();
            Class<?> resourceClass = injected.getResourceClass();
            if (method != null && resourceClass != null) {
                return new Matched(resourceClass, method);
            }
        }
        return quarkus(request);
    }

    /** What the injected resource info told of one request. */
    private record Matched(Class<?> resourceClass, Method method) implements ResourceInfo {
        @Override
        public Method getResourceMethod() {
            return method;
        }

        @Override
        public Class<?> getResourceClass() {
            return resourceClass;
        }
    }

    /** Quarkus REST's resource info of the request; null on any other runtime. */
    private static @Nullable ResourceInfo quarkus(ContainerRequestContext request) {
        Object serverContext = QuarkusRest.serverContext(request);
        return serverContext == null ? null : QuarkusRest.resourceInfo(serverContext);
    }
}
