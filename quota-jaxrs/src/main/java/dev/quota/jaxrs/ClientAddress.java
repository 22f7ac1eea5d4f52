package dev.quota.jaxrs;

import jakarta.ws.rs.container.ContainerRequestContext;

/**
 * The client's network address, which keys anonymous callers ({@code ip:203.0.113.7}).
 *
 * <p>The Jakarta REST API does not expose the remote address, so the runtime's own is plugged in;
 * on Grizzly: {@code request -> grizzlyRequestProvider.get().getRemoteAddr()}. A deployment
 * behind proxies wraps that one with its trusted-proxy rules ({@code X-Forwarded-For} is spoofable
 * by any client and must only be read when the direct peer is a trusted proxy); this interface is
 * the seam for that.
 */
@FunctionalInterface
public interface ClientAddress {

    /**
     * The address of the client that sent {@code request}; never null.
     *
     * @throws RuntimeException any failure, answered 503 like every failed quota check
     */
    String of(ContainerRequestContext request);

    /**
     * Always {@code "unknown"}: the default. All anonymous callers then share one bucket, which
     * limits them together rather than not at all.
     */
    static ClientAddress unknown() {
        return request -> "unknown";
    }
}
