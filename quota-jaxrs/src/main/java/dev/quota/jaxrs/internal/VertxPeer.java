package dev.quota.jaxrs.internal;

import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import java.lang.reflect.Method;
import org.jspecify.annotations.Nullable;

/**
 * Quarkus REST (RESTEasy Reactive on Vert.x): the peer is the remote address of the Vert.x
 * {@code io.vertx.core.http.HttpServerRequest}, which the request's {@code ServerRequestContext}
 * unwraps to. Called through reflection, so this module needs no Quarkus or Vert.x jar.
 */
@PreMatching
public final class VertxPeer implements ContainerRequestFilter {

    static final String HTTP_SERVER_REQUEST = "io.vertx.core.http.HttpServerRequest";

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
        if (serverContext == null) {
            return null;
        }
        try {
            Class<?> vertxRequest = serverContext.getClass().getClassLoader().loadClass(HTTP_SERVER_REQUEST);
            Object http = serverContext.getClass().getMethod("unwrap", Class.class).invoke(serverContext, vertxRequest);
            if (http == null) {
                return null;
            }
            Object socket = vertxRequest.getMethod("remoteAddress").invoke(http);
            if (socket == null) {
                return null;
            }
            Method hostAddress = socket.getClass().getClassLoader().loadClass("io.vertx.core.net.SocketAddress")
                    .getMethod("hostAddress");
            return (String) hostAddress.invoke(socket);
        } catch (ReflectiveOperationException | LinkageError e) {
            throw new IllegalStateException("the Vert.x request's remoteAddress() cannot be read", e);
        }
    }
}
