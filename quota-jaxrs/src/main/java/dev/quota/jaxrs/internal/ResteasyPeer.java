package dev.quota.jaxrs.internal;

import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import org.jspecify.annotations.Nullable;

/**
 * RESTEasy 6.2 and 7.0, standalone (Undertow, Netty, Vert.x, the JDK's HTTP server) or in a
 * servlet container: the peer is {@code org.jboss.resteasy.spi.HttpRequest#getRemoteAddress()} of
 * the request in progress, from {@code org.jboss.resteasy.core.ResteasyContext.getContextData(HttpRequest.class)}
 * (in a servlet container that is the servlet request's {@code getRemoteAddr()}). Called through
 * method handles, so this module needs no RESTEasy jar to compile or load.
 */
@PreMatching
public final class ResteasyPeer implements ContainerRequestFilter {

    static final String CONTEXT_CLASS = "org.jboss.resteasy.core.ResteasyContext";
    static final String HTTP_REQUEST_CLASS = "org.jboss.resteasy.spi.HttpRequest";

    private final Class<?> httpRequestType;
    private final MethodHandle contextData;
    private final MethodHandle remoteAddress;

    /**
     * For the runtime.
     *
     * @throws IllegalStateException if RESTEasy's classes are not there to be called
     */
    public ResteasyPeer() {
        try {
            ClassLoader loader = ResteasyPeer.class.getClassLoader();
            Class<?> context = Class.forName(CONTEXT_CLASS, true, loader);
            httpRequestType = Class.forName(HTTP_REQUEST_CLASS, true, loader);
            MethodHandles.Lookup lookup = MethodHandles.publicLookup();
            contextData = lookup.findStatic(context, "getContextData", MethodType.methodType(Object.class, Class.class));
            remoteAddress = lookup.findVirtual(httpRequestType, "getRemoteAddress", MethodType.methodType(String.class));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("RESTEasy's ResteasyContext and HttpRequest.getRemoteAddress() are needed"
                    + " to find the client address", e);
        }
    }

    @Override
    public void filter(ContainerRequestContext request) {
        if (Peers.known(request)) {
            return;
        }
        try {
            Peers.record(request, remoteAddress());
        } catch (RuntimeException e) {
            // never a 500 from here: the quota filter answers 503 and logs this as the cause
            Peers.failed(request, e);
        }
    }

    private @Nullable String remoteAddress() {
        try {
            Object httpRequest = contextData.invoke(httpRequestType);
            return httpRequest == null ? null : (String) remoteAddress.invoke(httpRequest);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("RESTEasy's HttpRequest.getRemoteAddress() failed", e);
        }
    }
}
