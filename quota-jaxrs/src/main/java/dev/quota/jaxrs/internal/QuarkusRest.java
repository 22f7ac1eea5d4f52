package dev.quota.jaxrs.internal;

import jakarta.ws.rs.container.ContainerRequestContext;
import java.lang.reflect.Method;
import org.jspecify.annotations.Nullable;

/** Quarkus REST's own request context behind a {@link ContainerRequestContext}, reached through reflection. */
final class QuarkusRest {

    private QuarkusRest() {
    }

    /**
     * The {@code ServerRequestContext} of {@code request} on Quarkus REST; null on any other runtime.
     *
     * @throws IllegalStateException if it is Quarkus REST but the method cannot be called
     */
    static @Nullable Object serverContext(ContainerRequestContext request) {
        Class<?> requestType = implemented(request.getClass(), ResourceMethods.QUARKUS_REQUEST);
        if (requestType == null) {
            return null;
        }
        try {
            Method serverContext = requestType.getMethod("getServerRequestContext");
            return serverContext.invoke(request);
        } catch (ReflectiveOperationException | LinkageError e) {
            throw new IllegalStateException("Quarkus REST's getServerRequestContext() cannot be called", e);
        }
    }

    /** The interface named {@code name} that {@code type} implements, or null. */
    private static @Nullable Class<?> implemented(Class<?> type, String name) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            for (Class<?> implemented : c.getInterfaces()) {
                if (implemented.getName().equals(name)) {
                    return implemented;
                }
                Class<?> inherited = implemented(implemented, name);
                if (inherited != null) {
                    return inherited;
                }
            }
        }
        return null;
    }
}
