package dev.quota.jaxrs.internal;

import jakarta.inject.Inject;
import jakarta.inject.Provider;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import org.glassfish.grizzly.http.server.Request;
import org.jspecify.annotations.Nullable;

/**
 * Jersey on Grizzly ({@code jersey-container-grizzly2-http}): the peer is
 * {@link Request#getRemoteAddr()} of the Grizzly request, which Jersey's Grizzly container binds
 * per request.
 */
public final class GrizzlyPeer implements ContainerRequestFilter {

    @Inject
    private @Nullable Provider<Request> requests;

    /** For the runtime, which injects the provider. */
    public GrizzlyPeer() {
    }

    @Override
    public void filter(ContainerRequestContext request) {
        Provider<Request> provider = requests;
        if (provider == null || Peers.known(request)) {
            return;
        }
        String address;
        try {
            Request grizzly = provider.get();
            address = grizzly == null ? null : grizzly.getRemoteAddr();
        } catch (RuntimeException notThisContainer) {
            // Grizzly is on the class path, but another container serves this request;
            // should no other adapter find the address, the quota filter logs this as the cause
            Peers.failed(request, notThisContainer);
            return;
        }
        Peers.record(request, address);
    }
}
