package dev.quota.demo;

import dev.quota.jaxrs.ClientAddress;
import jakarta.inject.Inject;
import jakarta.inject.Provider;
import jakarta.ws.rs.container.ContainerRequestContext;
import org.glassfish.grizzly.http.server.Request;
import org.jspecify.annotations.Nullable;

/**
 * The peer address of the TCP connection, as Grizzly saw it: anonymous callers are limited per
 * {@code ip:127.0.0.1}. {@link ApiServer} wraps it in {@link ClientAddress#trustedProxies}, so
 * {@code X-Forwarded-For} is read only from the config's {@code identity.trustedProxies}; the
 * bundled config trusts none (any client could send the header to get a fresh bucket).
 *
 * <p>The provider is injected by Jersey once the application is built ({@link ApiServer}); it
 * hands out the Grizzly request of the call in progress.
 */
final class GrizzlyClientAddress implements ClientAddress {

    @Inject
    private @Nullable Provider<Request> requests;

    @Override
    public @Nullable String of(ContainerRequestContext request) {
        Provider<Request> provider = requests;
        if (provider == null) {
            throw new IllegalStateException("the Grizzly request provider was not injected");
        }
        return provider.get().getRemoteAddr();
    }
}
