package dev.quota.demo;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.ext.ExceptionMapper;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A request body that is not JSON: 400 with the line and column where parsing stopped. The parser's
 * own message is left out, as it quotes the body back.
 */
final class JsonExceptionMapper implements ExceptionMapper<JsonProcessingException> {

    @Context
    private @Nullable UriInfo uriInfo;

    @Override
    public Response toResponse(JsonProcessingException exception) {
        JsonLocation location = exception.getLocation();
        String where = location == null || location.getLineNr() < 1 ? ""
                : " (line " + location.getLineNr() + ", column " + location.getColumnNr() + ")";
        String original = exception.getOriginalMessage();
        String what = original != null && original.startsWith("Duplicate field")
                ? "is not valid JSON: a field appears twice" : "is not valid JSON";
        var error = new Problem.FieldError("body", what + where);
        return Problem.invalid(List.of(error), RequestPaths.path(uriInfo)).toResponse();
    }
}
