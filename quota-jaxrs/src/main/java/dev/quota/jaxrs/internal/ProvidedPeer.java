package dev.quota.jaxrs.internal;

import jakarta.inject.Provider;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import org.jspecify.annotations.Nullable;

/**
 * The peer of a request from the container's own request object, which the runtime injects per
 * request through a {@link Provider}: Grizzly's, Jetty's or the servlet request. Subclasses hold the
 * injected provider (its type is the container's) and read the address from the object. Each
 * adapter is {@code @PreMatching}: the peer is known for requests the runtime refuses before any
 * resource method runs (405, 406, 415), which are counted too.
 *
 * @param <R> the container's request type
 */
abstract class ProvidedPeer<R> implements ContainerRequestFilter {

    /** The injected provider, or null before injection (then this adapter does nothing). */
    abstract @Nullable Provider<R> provider();

    /** The peer address the container reports for {@code containerRequest}, or null. */
    abstract @Nullable String address(R containerRequest);

    /**
     * Leaves a {@link BodyProbe} for {@code containerRequest} where the runtime's entity stream
     * cannot tell what of the body is here; by default nothing.
     */
    void probeBody(ContainerRequestContext request, R containerRequest) {
    }

    @Override
    public final void filter(ContainerRequestContext request) {
        Provider<R> provider = provider();
        if (provider == null || Peers.known(request)) {
            return;
        }
        String address;
        try {
            R containerRequest = provider.get();
            if (containerRequest != null) {
                probeBody(request, containerRequest);
            }
            address = containerRequest == null ? null : address(containerRequest);
        } catch (RuntimeException notThisContainer) {
            // the container is on the class path, but another one serves this request; should no
            // other adapter find the address, the quota filter logs this as the cause
            Peers.failed(request, notThisContainer);
            return;
        }
        Peers.record(request, address);
    }
}
