package dev.quota.jaxrs;

import jakarta.ws.rs.container.ContainerRequestContext;
import org.jspecify.annotations.Nullable;

/**
 * The address of the peer that opened the connection: anonymous callers are counted by it
 * ({@code ip:203.0.113.7}), and guessed API keys are counted per address.
 *
 * <p>The default of {@link QuotaFeature} needs no code: {@link #peer()}, read from the runtime
 * (Jersey on Grizzly, Jetty or a servlet container; RESTEasy standalone or in a servlet container).
 * On another runtime the feature refuses to start and says how to supply the address:
 * {@code QuotaFeature.builder(service).clientAddress(request -> ...)}. Behind proxies, list them in
 * the config's {@code identity.trustedProxies}: the service reads {@code X-Forwarded-For}, and
 * believes it only when this peer is a trusted proxy (any client can write the header).
 */
@FunctionalInterface
public interface ClientAddress {

    /** The header proxies append the addresses they received a request from to. */
    String X_FORWARDED_FOR = "X-Forwarded-For";

    /**
     * The peer address of the connection {@code request} came on, as an address literal
     * ({@code 203.0.113.7}, {@code 2001:db8::1}), or null when the runtime gave none (a request
     * without a credential is then answered 503 and logged: never counted in a bucket shared by
     * every anonymous caller).
     *
     * @throws RuntimeException any failure, answered 503 like every failed quota check
     */
    @Nullable String of(ContainerRequestContext request);

    /**
     * The TCP peer of the request, as the runtime reports it: {@link QuotaFeature} registers a small
     * runtime-specific filter that finds it: on Jersey, the Grizzly request's {@code getRemoteAddr()},
     * the Jetty request's remote socket address, or the servlet request's {@code getRemoteAddr()};
     * on RESTEasy, {@code org.jboss.resteasy.spi.HttpRequest#getRemoteAddress()}. A container
     * without connections (Jersey's in-memory test container) has none: tests there name an address
     * themselves, {@code clientAddress(request -> "192.0.2.1")}. The feature's default; works only
     * in an application where a {@link QuotaFeature} is registered.
     */
    static ClientAddress peer() {
        return PeerAddress.INSTANCE;
    }
}
