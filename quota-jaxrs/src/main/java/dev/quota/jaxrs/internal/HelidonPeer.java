package dev.quota.jaxrs.internal;

import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;

/**
 * Helidon MP (Jersey on Helidon's web server): the peer is the request property {@value #PROPERTY},
 * which Helidon sets on every request to the remote host's address.
 */
@PreMatching
public final class HelidonPeer implements ContainerRequestFilter {

    static final String PROPERTY = "io.helidon.jaxrs.remote-host";

    /** For the runtime. */
    public HelidonPeer() {
    }

    @Override
    public void filter(ContainerRequestContext request) {
        if (Peers.known(request)) {
            return;
        }
        if (request.getProperty(PROPERTY) instanceof String address) {
            Peers.record(request, address);
        }
    }
}
