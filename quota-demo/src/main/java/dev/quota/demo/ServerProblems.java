package dev.quota.demo;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/** Problem answers written by a Jetty handler, before any Jersey application has the request. */
final class ServerProblems {

    private static final ObjectMapper JSON = new ObjectMapper();

    private ServerProblems() {
    }

    /** {@code problem} as JSON bytes. */
    static byte[] bytes(Problem problem) {
        try {
            return JSON.writeValueAsBytes(problem);
        } catch (JsonProcessingException e) {
            return ("{\"type\":\"about:blank\",\"status\":" + problem.status() + "}").getBytes(StandardCharsets.UTF_8);
        }
    }

    /** Writes {@code problem} as the whole response, {@code application/problem+json}, then completes {@code callback}. */
    static void send(Response response, Callback callback, Problem problem) {
        byte[] body = bytes(problem);
        response.setStatus(problem.status());
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, Problem.MEDIA_TYPE);
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
        response.write(true, ByteBuffer.wrap(body), callback);
    }
}
