package dev.quota.demo;

import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Anything else: 500 with a generic detail and a reference to find the stack trace in the log.
 * More specific mappers (the quota module's, the demo's) win for their exceptions.
 */
final class UnexpectedExceptionMapper implements ExceptionMapper<Throwable> {

    private static final Logger log = LoggerFactory.getLogger(UnexpectedExceptionMapper.class);

    @Context
    private @Nullable UriInfo uriInfo;

    @Override
    public Response toResponse(Throwable exception) {
        String reference = UUID.randomUUID().toString();
        String path = RequestPaths.path(uriInfo);
        log.error("unexpected error on {} (reference {})", path, reference, exception);
        return Problem.http(500, "The server failed to answer this request (reference " + reference + ").", path)
                .toResponse();
    }
}
