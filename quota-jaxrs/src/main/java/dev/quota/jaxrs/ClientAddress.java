package dev.quota.jaxrs;

import dev.quota.core.Identity;
import jakarta.ws.rs.container.ContainerRequestContext;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The client's network address, which keys anonymous callers ({@code ip:203.0.113.7}) and failed
 * API-key lookups.
 *
 * <p>The default of {@link QuotaFeature} needs no code: {@link #peer()}, the address that opened
 * the TCP connection, read from the runtime (Jersey on Grizzly, Jetty or a servlet container;
 * RESTEasy standalone or in a servlet container), behind {@link #trustedProxies} with the active
 * config's {@code identity.trustedProxies}. On another runtime the feature refuses to start and
 * says how to supply the address: {@code QuotaFeature.builder(service).clientAddress(request -> ...)}.
 * {@code X-Forwarded-For} is spoofable by any client and is only read when the direct peer is a
 * trusted proxy. IPv6 addresses are grouped by the config's {@code identity.ipv6Prefix} where
 * anonymous callers are counted, whatever this returns.
 */
@FunctionalInterface
public interface ClientAddress {

    /** The header proxies append the addresses they received a request from to. */
    String X_FORWARDED_FOR = "X-Forwarded-For";

    /**
     * The address of the client that sent {@code request}; never null.
     *
     * @throws RuntimeException any failure, answered 503 like every failed quota check
     */
    String of(ContainerRequestContext request);

    /**
     * The TCP peer of the request: the address that opened the connection, as the runtime reports
     * it ({@code 203.0.113.7}, {@code 2001:db8::1}). {@link QuotaFeature} registers a small
     * runtime-specific filter that finds it: on Jersey, the Grizzly request's
     * {@code getRemoteAddr()}, the Jetty request's remote socket address, or the servlet request's
     * {@code getRemoteAddr()}; on RESTEasy, {@code org.jboss.resteasy.spi.HttpRequest#getRemoteAddress()}.
     * A request for which the runtime reports none fails its quota check with 503 and an ERROR log,
     * rather than being counted with everybody else; so does every request of a container without
     * connections, such as Jersey's in-memory test container, where tests name an address
     * themselves: {@code clientAddress(request -> "192.0.2.1")}. Used by the feature's default,
     * {@code trustedProxies(peer(), () -> service.config().identity())}; works only in an
     * application where a {@link QuotaFeature} is registered.
     */
    static ClientAddress peer() {
        return PeerAddress.INSTANCE;
    }

    /**
     * Always {@code "unknown"}: an explicit opt-in for when the client's address cannot be known or
     * must not be used. All anonymous callers then share one bucket (one client exhausting the
     * anonymous plan limits every other), and failed API-key lookups are counted together, without
     * blocking an address before lookup. Never the default.
     */
    static ClientAddress unknown() {
        return request -> "unknown";
    }

    /**
     * The client behind the trusted proxies of the active config's {@code identity.trustedProxies}.
     * {@code peer} gives the address that opened the connection. When it is not a trusted proxy,
     * that address is the client and {@code X-Forwarded-For} is ignored (any client can write it).
     * When it is, {@code X-Forwarded-For} is walked from the right, skipping trusted proxies, and the
     * first untrusted address is the client; a malformed entry stops the walk at the last trusted
     * hop. With trusted proxies {@code 10.0.0.0/8}, peer {@code 10.0.0.5} and
     * {@code X-Forwarded-For: 198.51.100.9, 203.0.113.7, 10.0.0.9}, the client is {@code 203.0.113.7}.
     * A peer that is not an address literal is returned as it is. Never resolves host names.
     *
     * <pre>{@code
     * ClientAddress.trustedProxies(ClientAddress.peer(), () -> service.config().identity())   // the default
     * }</pre>
     *
     * @param peer     the connection's remote address, as text
     * @param identity the identity settings to apply, read per request so a reload takes effect
     * @throws NullPointerException if an argument is null
     */
    static ClientAddress trustedProxies(ClientAddress peer, Supplier<Identity> identity) {
        return new ForwardedClientAddress(Objects.requireNonNull(peer, "peer"),
                Objects.requireNonNull(identity, "identity"));
    }
}
