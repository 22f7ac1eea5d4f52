package dev.quota.jaxrs.internal;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.core.Context;
import org.jspecify.annotations.Nullable;

/**
 * RESTEasy in a servlet container that keeps RESTEasy's own classes from the application (Open
 * Liberty): the peer is {@link HttpServletRequest#getRemoteAddr()} of the servlet request, which
 * Jakarta REST injects with {@code @Context} in a servlet container (section 10.1 of the
 * specification); the runtime puts a proxy to the request in progress here. Before matching, like
 * every adapter, so the address is known for a request the runtime refuses (405, 406, 415) too.
 */
@PreMatching
public final class ResteasyServletPeer implements ContainerRequestFilter {

    @Context
    private @Nullable HttpServletRequest servletRequest;

    /** For the runtime, which injects the servlet request. */
    public ResteasyServletPeer() {
    }

    @Override
    public void filter(ContainerRequestContext request) {
        if (Peers.known(request)) {
            return;
        }
        try {
            HttpServletRequest servlet = servletRequest;
            Peers.record(request, servlet == null ? null : servlet.getRemoteAddr());
        } catch (RuntimeException e) {
            // never a 500 from here: the quota filter answers 503 and logs this as the cause
            Peers.failed(request, e);
        }
    }
}
