package dev.quota.demo;

import jakarta.ws.rs.core.UriInfo;
import org.jspecify.annotations.Nullable;

/** Small helpers shared by the exception mappers and resources. */
final class RequestPaths {

    private RequestPaths() {
    }

    /** The request path as sent (percent-encoded, no query: it may carry secrets), or null. */
    static @Nullable String path(@Nullable UriInfo uriInfo) {
        if (uriInfo == null) {
            return null;
        }
        try {
            return uriInfo.getRequestUri().getRawPath();
        } catch (RuntimeException e) {
            // no request in scope (a mapper called outside a request): leave the instance out
            return null;
        }
    }
}
