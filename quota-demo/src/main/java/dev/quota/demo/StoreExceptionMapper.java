package dev.quota.demo;

import dev.quota.core.QuotaStoreException;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.ext.ExceptionMapper;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Redis could not answer a read such as {@code GET /api/v1/quota}: 503, retry in a second. */
final class StoreExceptionMapper implements ExceptionMapper<QuotaStoreException> {

    private static final Logger log = LoggerFactory.getLogger(StoreExceptionMapper.class);

    @Context
    private @Nullable UriInfo uriInfo;

    @Override
    public Response toResponse(QuotaStoreException exception) {
        log.warn("quota store unavailable: {}", exception.getMessage());
        Problem problem = Problem.http(503, "Quotas cannot be read right now; retry in 1 s.", RequestPaths.path(uriInfo));
        return Response.fromResponse(problem.toResponse()).header("Retry-After", "1").build();
    }
}
