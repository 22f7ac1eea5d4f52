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
 * read through reflection so that this module needs no Quarkus jar.
 */
public final class ResourceMethods {

    static final String QUARKUS_REQUEST = "org.jboss.resteasy.reactive.server.spi.ResteasyReactiveContainerRequestContext";
    static final String QUARKUS_SERVER_CONTEXT = "org.jboss.resteasy.reactive.server.spi.ServerRequestContext";

    private ResourceMethods() {
    }

    /**
     * The matched method of {@code request}, or null when neither the runtime's injection nor the
     * request tells it.
     *
     * @param injected the filter's injected {@code @Context ResourceInfo}, or null when the runtime injected none
     */
    public static @Nullable ResourceInfo matched(ContainerRequestContext request, @Nullable ResourceInfo injected) {
        if (injected != null && injected.getResourceMethod() != null && injected.getResourceClass() != null) {
            return injected;
        }
        return quarkus(request);
    }

    /** Quarkus REST's resource info of the request; null on any other runtime. */
    private static @Nullable ResourceInfo quarkus(ContainerRequestContext request) {
        Object serverContext = QuarkusRest.serverContext(request);
        if (serverContext == null) {
            return null;
        }
        try {
            Method info = serverContext.getClass().getClassLoader().loadClass(QUARKUS_SERVER_CONTEXT)
                    .getMethod("getResteasyReactiveResourceInfo");
            return info.invoke(serverContext) instanceof ResourceInfo resourceInfo ? resourceInfo : null;
        } catch (ReflectiveOperationException | LinkageError e) {
            throw new IllegalStateException("Quarkus REST's ServerRequestContext.getResteasyReactiveResourceInfo()"
                    + " cannot be called", e);
        }
    }
}
