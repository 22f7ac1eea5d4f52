package dev.quota.jaxrs;

import dev.quota.jaxrs.internal.ProblemResponses;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.ext.ExceptionMapper;
import org.jspecify.annotations.Nullable;

/** Answers a {@link QuotaExceededException} with its problem response, adding the request path. */
final class QuotaExceededMapper implements ExceptionMapper<QuotaExceededException> {

    @Context
    private @Nullable UriInfo uriInfo;

    @Override
    public Response toResponse(QuotaExceededException exception) {
        String instance = uriInfo == null ? null : uriInfo.getRequestUri().getRawPath();
        return ProblemResponses.forDecision(exception.decision(), instance);
    }
}
