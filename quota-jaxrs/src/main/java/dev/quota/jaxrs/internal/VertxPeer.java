package dev.quota.jaxrs.internal;

import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import org.jspecify.annotations.Nullable;

/**
 * Quarkus REST (RESTEasy Reactive on Vert.x): the peer is the remote address of the Vert.x
 * {@code io.vertx.core.http.HttpServerRequest}, which the request's {@code ServerRequestContext}
 * unwraps to. Called through reflection, so this module needs no Quarkus or Vert.x jar.
 */
@PreMatching
public final class VertxPeer implements ContainerRequestFilter {

    static final String HTTP_SERVER_REQUEST = QuarkusRest.HTTP_SERVER_REQUEST;

    /** For the runtime. */
    public VertxPeer() {
    }

    @Override
    public void filter(ContainerRequestContext request) {
        if (Peers.known(request)) {
            return;
        }
        try {
            Peers.record(request, remoteAddress(request));
        } catch (RuntimeException e) {
            // never a 500 from here: the quota filter answers 503 and logs this as the cause
            Peers.failed(request, e);
        }
    }

    private static @Nullable String remoteAddress(ContainerRequestContext request) {
        Object serverContext = QuarkusRest.serverContext(request);
        return serverContext == null ? null : QuarkusRest.remoteAddress(serverContext);
    }
}
