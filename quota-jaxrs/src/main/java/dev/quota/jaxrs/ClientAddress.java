package dev.quota.jaxrs;

import jakarta.ws.rs.container.ContainerRequestContext;
import org.jspecify.annotations.Nullable;

/**
 * The address of the peer that opened the connection: anonymous callers are counted by it
 * ({@code ip:203.0.113.7}), and guessed API keys are counted per address.
 *
 * <p>The Jakarta REST API does not expose the remote address, so each runtime's own is plugged in.
 * Behind proxies, give the config's {@code identity.trustedProxies}: {@code X-Forwarded-For} is read
 * by the service, and believed only when this peer is a trusted proxy (any client can write the
 * header).
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
}
