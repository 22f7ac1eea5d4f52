package dev.quota.demo;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URISyntaxException;
import org.glassfish.grizzly.http.server.ErrorPageGenerator;
import org.glassfish.grizzly.http.server.Request;
import org.glassfish.grizzly.http.server.Response;

/**
 * Errors Grizzly answers itself, before Jersey has a request to route: a problem+json body
 * instead of Grizzly's HTML page. A request URI Jersey cannot parse ({@code /accounts/%zz})
 * surfaces here as an exception of the container; it is the client's error, so 400, not 500.
 */
final class ProblemErrorPages implements ErrorPageGenerator {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Override
    public String generate(Request request, int status, String reasonPhrase, String description, Throwable exception) {
        Response response = request.getResponse();
        int answered = status;
        String title = reasonPhrase == null || reasonPhrase.isEmpty() ? "HTTP " + status : reasonPhrase;
        String detail = status >= 500 ? "The server failed to answer this request."
                : "The request cannot be processed: " + title + ".";
        if (causedBy(exception, URISyntaxException.class)) {
            // Grizzly set the status before asking for the page; the response is not committed yet.
            answered = 400;
            title = "Bad Request";
            detail = "The request URI is malformed (check its percent-encoding).";
            response.setStatus(answered, title);
        }
        // Grizzly sets text/html only when no content type is set yet.
        response.setCharacterEncoding("UTF-8");
        response.setContentType(Problem.MEDIA_TYPE);
        Problem problem = new Problem("about:blank", title, answered, detail, null, null);
        try {
            return JSON.writeValueAsString(problem);
        } catch (JsonProcessingException e) {
            return "{\"type\":\"about:blank\",\"status\":" + answered + "}";
        }
    }

    private static boolean causedBy(Throwable exception, Class<? extends Throwable> type) {
        for (Throwable t = exception; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }
}
