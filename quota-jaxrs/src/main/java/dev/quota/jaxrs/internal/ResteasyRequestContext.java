package dev.quota.jaxrs.internal;

import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Makes {@code @Context ContainerRequestContext} injectable into a resource method on RESTEasy, as
 * it is on Jersey and Quarkus REST, so that {@code QuotaFeature.meter(request)} works the same on
 * every runtime: RESTEasy injects only what its context data holds, and it holds no
 * {@code ContainerRequestContext} (a resource asking for one fails, {@code RESTEASY003880}). This
 * filter puts the request's into it with {@code org.jboss.resteasy.core.ResteasyContext.pushContext},
 * at the request's own level, which RESTEasy drops when the request ends.
 *
 * <p>RESTEasy injects a proxy that looks the context up on the calling thread whenever it is
 * called; the request itself is kept as its property {@link #PROPERTY}, for {@link #own} to hand
 * to what outlives the resource method (the settle when the response ends). Called through method
 * handles, so this module needs no RESTEasy jar to compile or load.
 */
public final class ResteasyRequestContext implements ContainerRequestFilter {

    /** The request property holding the request's own context. */
    public static final String PROPERTY = "dev.quota.jaxrs.requestContext";

    private final MethodHandle pushContext;

    /**
     * For the runtime.
     *
     * @throws IllegalStateException if RESTEasy's {@code ResteasyContext.pushContext} is not there
     */
    public ResteasyRequestContext() {
        try {
            Class<?> context = Class.forName(ResteasyPeer.CONTEXT_CLASS, true,
                    ResteasyRequestContext.class.getClassLoader());
            pushContext = MethodHandles.publicLookup().findStatic(context, "pushContext",
                    MethodType.methodType(void.class, Class.class, Object.class));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("RESTEasy's ResteasyContext.pushContext is needed to inject"
                    + " ContainerRequestContext into resources", e);
        }
    }

    /** Whether RESTEasy's context data is there to put the request into. */
    public static boolean available() {
        try {
            Class.forName(ResteasyPeer.CONTEXT_CLASS, false, ResteasyRequestContext.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /**
     * The request's own context behind {@code request}, which may be RESTEasy's proxy that works
     * only on the request's thread while it is served; {@code request} itself on other runtimes.
     */
    public static ContainerRequestContext own(ContainerRequestContext request) {
        return request.getProperty(PROPERTY) instanceof ContainerRequestContext own ? own : request;
    }

    @Override
    public void filter(ContainerRequestContext request) {
        request.setProperty(PROPERTY, request);
        try {
            pushContext.invoke(ContainerRequestContext.class, request);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("RESTEasy's ResteasyContext.pushContext failed", e);
        }
    }
}
