package dev.quota.jaxrs.internal;

import jakarta.inject.Inject;
import jakarta.inject.Provider;
import jakarta.ws.rs.container.PreMatching;
import org.glassfish.grizzly.http.server.Request;
import org.jspecify.annotations.Nullable;

/**
 * Jersey on Grizzly ({@code jersey-container-grizzly2-http}): the peer is
 * {@link Request#getRemoteAddr()} of the Grizzly request, which Jersey's Grizzly container binds
 * per request.
 */
@PreMatching
public final class GrizzlyPeer extends ProvidedPeer<Request> {

    @Inject
    private @Nullable Provider<Request> requests;

    /** For the runtime, which injects the provider. */
    public GrizzlyPeer() {
    }

    @Override
    @Nullable Provider<Request> provider() {
        return requests;
    }

    @Override
    @Nullable String address(Request containerRequest) {
        return containerRequest.getRemoteAddr();
    }
}
