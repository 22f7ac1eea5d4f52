package dev.quota.demo;

import com.fasterxml.jackson.annotation.JsonInclude;
import jakarta.ws.rs.core.Response;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * An RFC 9457 problem body, the only error format of the demo. Plain HTTP errors (404, 405, 415,
 * 500) use type {@code about:blank}; the demo's own kinds a {@code urn:quota-demo:problem:} URN,
 * in the style of quota-jaxrs ({@code urn:quota:problem:quota-exceeded}).
 *
 * @param type     what kind of problem
 * @param title    the HTTP reason phrase, or a short summary of the kind
 * @param status   the HTTP status
 * @param detail   what went wrong with this request; never echoes secrets or stack traces
 * @param instance the request path, when known
 * @param errors   field-level errors of a rejected request body; null (left out) otherwise
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
record Problem(String type, String title, int status, String detail, @Nullable String instance,
               @Nullable List<FieldError> errors) {

    static final String MEDIA_TYPE = "application/problem+json";
    static final String INVALID_REQUEST = "urn:quota-demo:problem:invalid-request";

    /** A plain HTTP error: type {@code about:blank}, title the reason phrase. */
    static Problem http(int status, String detail, @Nullable String instance) {
        Response.Status known = Response.Status.fromStatusCode(status);
        String title = known == null ? "HTTP " + status : known.getReasonPhrase();
        return new Problem("about:blank", title, status, detail, instance, null);
    }

    /** 400 with one error per bad field. */
    static Problem invalid(List<FieldError> errors, @Nullable String instance) {
        String detail = errors.size() == 1 ? "The request has 1 invalid field."
                : "The request has " + errors.size() + " invalid fields.";
        return new Problem(INVALID_REQUEST, "Bad Request", 400, detail, instance, List.copyOf(errors));
    }

    /** This problem as a response with {@code Content-Type: application/problem+json}. */
    Response toResponse() {
        return Response.status(status).type(MEDIA_TYPE).entity(this).build();
    }

    /**
     * One bad field of a request.
     *
     * @param field   the JSON member ({@code amount}), a query parameter, or {@code body} for the body as a whole
     * @param message what is wrong, e.g. {@code must have at most 2 decimals}
     */
    record FieldError(String field, String message) {
    }
}
