package dev.quota.demo;

import jakarta.ws.rs.NotAcceptableException;
import jakarta.ws.rs.NotAllowedException;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.NotSupportedException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.ext.ExceptionMapper;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Turns the runtime's own HTTP errors (no resource at the path, wrong method, wrong media type)
 * into problem+json, keeping headers such as {@code Allow}. A response that already has a body,
 * like the quota module's 429, passes through unchanged.
 */
final class WebApplicationExceptionMapper implements ExceptionMapper<WebApplicationException> {

    @Context
    private @Nullable UriInfo uriInfo;

    @Override
    public Response toResponse(WebApplicationException exception) {
        Response original = exception.getResponse();
        if (original.hasEntity()) {
            return original;
        }
        int status = original.getStatus();
        Response problem = Problem.http(status, detail(exception, original), RequestPaths.path(uriInfo)).toResponse();
        Response.ResponseBuilder out = Response.fromResponse(problem);
        original.getHeaders().forEach((name, values) -> {
            boolean entityHeader = name.equalsIgnoreCase(HttpHeaders.CONTENT_TYPE)
                    || name.equalsIgnoreCase(HttpHeaders.CONTENT_LENGTH);
            if (!entityHeader) {
                values.forEach(value -> out.header(name, value));
            }
        });
        return out.build();
    }

    private static String detail(WebApplicationException exception, Response response) {
        if (exception instanceof NotFoundException) {
            return "There is no resource at this path.";
        }
        if (exception instanceof NotAllowedException) {
            Set<String> allowed = response.getAllowedMethods();
            if (allowed.isEmpty()) {
                return "This method is not allowed here.";
            }
            return "This method is not allowed here; allowed: " + String.join(", ", allowed.stream().sorted().toList())
                    + ".";
        }
        if (exception instanceof NotSupportedException) {
            return "This media type is not supported here; send application/json.";
        }
        if (exception instanceof NotAcceptableException) {
            return "None of the media types in Accept can be produced here.";
        }
        Response.StatusType status = response.getStatusInfo();
        if (status.getFamily() == Response.Status.Family.SERVER_ERROR) {
            return "The server could not answer this request.";
        }
        return "The request cannot be processed: " + status.getReasonPhrase() + ".";
    }
}
