package dev.quota.jaxrs.internal;

import jakarta.ws.rs.container.ContainerRequestContext;

/**
 * Tells, without waiting, whether a request's whole body has already reached the server, on a
 * runtime whose entity stream cannot say so by {@code available()}. A runtime adapter leaves one in
 * the request property {@link #PROPERTY}; the quota filter asks it for the bodies of
 * {@code @AmountLimit} methods only.
 */
public interface BodyProbe {

    /** The request property holding the request's probe. */
    String PROPERTY = "dev.quota.jaxrs.bodyProbe";

    /**
     * Whether all {@code length} bytes of the body are here. It may read what the connection holds
     * (never waiting for more); what it read, it puts back as the start of the request's entity
     * stream, so the body's reader sees the body whole either way.
     *
     * @param length the declared {@code Content-Length}, at least 1
     */
    boolean arrived(ContainerRequestContext request, int length);
}
