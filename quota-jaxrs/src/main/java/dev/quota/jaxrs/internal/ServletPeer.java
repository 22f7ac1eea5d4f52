package dev.quota.jaxrs.internal;

import jakarta.inject.Inject;
import jakarta.inject.Provider;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import org.jspecify.annotations.Nullable;

/**
 * Jersey in a servlet container ({@code jersey-container-servlet} on Tomcat, Jetty, Undertow,
 * Grizzly's servlet support, ...): the peer is {@link HttpServletRequest#getRemoteAddr()} of the
 * servlet request, which Jersey's servlet container binds per request.
 */
public final class ServletPeer implements ContainerRequestFilter {

    @Inject
    private @Nullable Provider<HttpServletRequest> requests;

    /** For the runtime, which injects the provider. */
    public ServletPeer() {
    }

    @Override
    public void filter(ContainerRequestContext request) {
        Provider<HttpServletRequest> provider = requests;
        if (provider == null || Peers.known(request)) {
            return;
        }
        String address;
        try {
            HttpServletRequest servlet = provider.get();
            address = servlet == null ? null : servlet.getRemoteAddr();
        } catch (RuntimeException notThisContainer) {
            // the servlet API is on the class path, but this request did not come through a servlet;
            // should no other adapter find the address, the quota filter logs this as the cause
            Peers.failed(request, notThisContainer);
            return;
        }
        Peers.record(request, address);
    }
}
