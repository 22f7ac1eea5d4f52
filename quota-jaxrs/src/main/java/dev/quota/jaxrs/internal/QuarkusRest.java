package dev.quota.jaxrs.internal;

import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ResourceInfo;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Quarkus REST's own request context behind a {@link ContainerRequestContext}, reached through
 * reflection so that this module needs no Quarkus or Vert.x jar. The methods are looked up once per
 * class and kept ({@link ClassValue}): a request costs the invocations only.
 */
final class QuarkusRest {

    static final String REQUEST = "org.jboss.resteasy.reactive.server.spi.ResteasyReactiveContainerRequestContext";
    static final String SERVER_CONTEXT = "org.jboss.resteasy.reactive.server.spi.ServerRequestContext";
    static final String HTTP_SERVER_REQUEST = "io.vertx.core.http.HttpServerRequest";
    static final String SOCKET_ADDRESS = "io.vertx.core.net.SocketAddress";

    /** {@code getServerRequestContext()} of a request class; empty for a class that is not Quarkus REST's. */
    private static final ClassValue<Optional<Method>> SERVER_CONTEXT_OF = new ClassValue<>() {
        @Override
        protected Optional<Method> computeValue(Class<?> type) {
            Class<?> requestType = implemented(type, REQUEST);
            return requestType == null ? Optional.empty() : Optional.of(method(requestType, "getServerRequestContext"));
        }
    };

    /** The calls on a server context class, looked up through its class loader. */
    private static final ClassValue<Calls> CALLS = new ClassValue<>() {
        @Override
        protected Calls computeValue(Class<?> type) {
            try {
                ClassLoader loader = type.getClassLoader();
                Class<?> vertxRequest = loader.loadClass(HTTP_SERVER_REQUEST);
                return new Calls(method(loader.loadClass(SERVER_CONTEXT), "getResteasyReactiveResourceInfo"),
                        method(type, "unwrap", Class.class), vertxRequest, method(vertxRequest, "remoteAddress"),
                        method(loader.loadClass(SOCKET_ADDRESS), "hostAddress"));
            } catch (ClassNotFoundException | LinkageError e) {
                throw new IllegalStateException("Quarkus REST without its ServerRequestContext or Vert.x classes", e);
            }
        }
    };

    private record Calls(Method resourceInfo, Method unwrap, Class<?> vertxRequest, Method remoteAddress,
                         Method hostAddress) {
    }

    private QuarkusRest() {
    }

    /**
     * The {@code ServerRequestContext} of {@code request} on Quarkus REST; null on any other runtime.
     *
     * @throws IllegalStateException if it is Quarkus REST but the method cannot be called
     */
    static @Nullable Object serverContext(ContainerRequestContext request) {
        Optional<Method> serverContext = SERVER_CONTEXT_OF.get(request.getClass());
        return serverContext.isEmpty() ? null : invoke(serverContext.get(), request);
    }

    /** The matched resource method of the request whose server context is {@code serverContext}. */
    static @Nullable ResourceInfo resourceInfo(Object serverContext) {
        return invoke(CALLS.get(serverContext.getClass()).resourceInfo(), serverContext) instanceof ResourceInfo info
                ? info : null;
    }

    /** The Vert.x request's remote host address, such as {@code 203.0.113.7}; null when Vert.x tells none. */
    static @Nullable String remoteAddress(Object serverContext) {
        Calls calls = CALLS.get(serverContext.getClass());
        Object http = invoke(calls.unwrap(), serverContext, calls.vertxRequest());
        Object socket = http == null ? null : invoke(calls.remoteAddress(), http);
        return socket == null ? null : (String) invoke(calls.hostAddress(), socket);
    }

    private static Method method(Class<?> type, String name, Class<?>... parameters) {
        try {
            return type.getMethod(name, parameters);
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException("Quarkus REST: " + type.getName() + "." + name + " is missing", e);
        }
    }

    private static @Nullable Object invoke(Method method, Object target, Object... arguments) {
        try {
            return method.invoke(target, arguments);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("Quarkus REST: " + method + " cannot be called", e);
        } catch (InvocationTargetException e) {
            throw new IllegalStateException("Quarkus REST: " + method + " failed", e.getCause());
        }
    }

    /** The interface named {@code name} that {@code type} implements, or null. */
    private static @Nullable Class<?> implemented(Class<?> type, String name) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            for (Class<?> implemented : c.getInterfaces()) {
                if (implemented.getName().equals(name)) {
                    return implemented;
                }
                Class<?> inherited = implemented(implemented, name);
                if (inherited != null) {
                    return inherited;
                }
            }
        }
        return null;
    }
}
