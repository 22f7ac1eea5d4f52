package dev.quota.demo;

import java.nio.ByteBuffer;
import java.util.Locale;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;
import org.jspecify.annotations.Nullable;

/**
 * Errors Jetty answers itself, before Jersey has a request to route: a problem+json body instead of
 * Jetty's HTML page, both for a request it parsed ({@link #handle}) and for one it could not parse
 * ({@link #badMessageError}: a malformed {@code Host}, a request URI with a bad percent-encoding, a
 * header block over the limit). Nothing of the request is echoed.
 */
final class ProblemErrorHandler extends ErrorHandler {

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        int status = response.getStatus() > 0 ? response.getStatus() : 500;
        Object message = request.getAttribute(ERROR_MESSAGE);
        ServerProblems.send(response, callback, problem(status, message instanceof String text ? text : null));
        return true;
    }

    @Override
    @SuppressWarnings("removal") // Jetty 12.0 still calls it for a request it could not parse
    public ByteBuffer badMessageError(int status, String reason, HttpFields.Mutable fields) {
        Problem problem = problem(status, reason);
        byte[] body = ServerProblems.bytes(problem);
        fields.put(HttpHeader.CONTENT_TYPE, Problem.MEDIA_TYPE);
        return ByteBuffer.wrap(body);
    }

    /** The problem for {@code status}, with a detail chosen by Jetty's reason (never the reason itself). */
    static Problem problem(int status, @Nullable String reason) {
        String title = HttpStatus.getMessage(status);
        String lower = reason == null ? "" : reason.toLowerCase(Locale.ROOT);
        String detail;
        if (status == 400 && (lower.contains("host") || lower.contains("authority"))) {
            detail = HostCheckHandler.MALFORMED;
        } else if (status == 400 && (lower.contains("uri") || lower.contains("path") || lower.contains("encod"))) {
            detail = "The request URI is malformed (check its percent-encoding).";
        } else if (status == 431) {
            detail = "The request's headers are larger than this server accepts.";
        } else if (status >= 500) {
            detail = "The server failed to answer this request.";
        } else {
            detail = "The request cannot be processed: " + title + ".";
        }
        return new Problem("about:blank", title, status, detail, null, null);
    }
}
