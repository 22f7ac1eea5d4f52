package dev.quota.jaxrs.internal;

import jakarta.inject.Inject;
import jakarta.inject.Provider;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.ws.rs.container.PreMatching;
import org.jspecify.annotations.Nullable;

/**
 * Jersey in a servlet container ({@code jersey-container-servlet} on Tomcat, Jetty, Undertow,
 * Grizzly's servlet support, ...): the peer is {@link HttpServletRequest#getRemoteAddr()} of the
 * servlet request, which Jersey's servlet container binds per request.
 */
@PreMatching
public final class ServletPeer extends ProvidedPeer<HttpServletRequest> {

    @Inject
    private @Nullable Provider<HttpServletRequest> requests;

    /** For the runtime, which injects the provider. */
    public ServletPeer() {
    }

    @Override
    @Nullable Provider<HttpServletRequest> provider() {
        return requests;
    }

    @Override
    @Nullable String address(HttpServletRequest containerRequest) {
        return containerRequest.getRemoteAddr();
    }
}
