package dev.quota.jaxrs.internal;

import jakarta.inject.Inject;
import jakarta.inject.Provider;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.PreMatching;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import org.eclipse.jetty.server.Request;
import org.jspecify.annotations.Nullable;

/**
 * Jersey on Jetty ({@code jersey-container-jetty-http}): the peer is the remote socket address of
 * the Jetty request, which Jersey's Jetty container binds per request. Jetty 12 (Jersey 4):
 * {@code request.getConnectionMetaData().getRemoteSocketAddress()}; Jetty 11 and older, whose
 * {@code Request} is a servlet request: {@code getRemoteAddr()}, called reflectively.
 */
@PreMatching
public final class JettyPeer extends ProvidedPeer<Request> {

    /** Jetty 12 made {@code Request} an interface of the core API. */
    private static final boolean JETTY_12 = Request.class.isInterface();

    private static final @Nullable Method LEGACY_REMOTE_ADDR = JETTY_12 ? null : legacyRemoteAddr();

    @Inject
    private @Nullable Provider<Request> requests;

    /** For the runtime, which injects the provider. */
    public JettyPeer() {
    }

    @Override
    @Nullable Provider<Request> provider() {
        return requests;
    }

    @Override
    void probeBody(ContainerRequestContext request, Request containerRequest) {
        if (JETTY_12) {
            request.setProperty(BodyProbe.PROPERTY, new JettyBody(containerRequest));
        }
    }

    @Override
    @Nullable String address(Request containerRequest) {
        return remoteAddress(containerRequest);
    }

    private static @Nullable String remoteAddress(Request jetty) {
        if (JETTY_12) {
            return Peers.text(jetty.getConnectionMetaData().getRemoteSocketAddress());
        }
        Method getRemoteAddr = LEGACY_REMOTE_ADDR;
        if (getRemoteAddr == null) {
            return null;
        }
        try {
            return (String) getRemoteAddr.invoke(jetty);
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException("Jetty's Request.getRemoteAddr() failed", e);
        }
    }

    private static @Nullable Method legacyRemoteAddr() {
        try {
            return Request.class.getMethod("getRemoteAddr");
        } catch (NoSuchMethodException e) {
            return null;
        }
    }
}
