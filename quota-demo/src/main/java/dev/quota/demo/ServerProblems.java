package dev.quota.demo;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.glassfish.grizzly.http.server.Response;

/** Problem answers written by a Grizzly handler, before any Jersey application has the request. */
final class GrizzlyProblems {

    private static final ObjectMapper JSON = new ObjectMapper();

    private GrizzlyProblems() {
    }

    /** Writes {@code problem} as the whole response, {@code application/problem+json}. */
    static void send(Response response, Problem problem) throws IOException {
        byte[] body;
        try {
            body = JSON.writeValueAsBytes(problem);
        } catch (JsonProcessingException e) {
            body = ("{\"type\":\"about:blank\",\"status\":" + problem.status() + "}").getBytes(StandardCharsets.UTF_8);
        }
        response.setStatus(problem.status());
        response.setContentType(Problem.MEDIA_TYPE);
        response.setCharacterEncoding("UTF-8");
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }
}
