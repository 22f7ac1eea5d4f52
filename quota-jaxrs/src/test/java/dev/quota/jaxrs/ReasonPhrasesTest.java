package dev.quota.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.jaxrs.internal.ProblemResponses;
import dev.quota.testkit.RawHttp;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.Response;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.Test;

/**
 * What broke: 422 went out as {@code Response.status(422)}, which Jakarta REST 3.1 has no reason
 * phrase for, and Jersey on Grizzly wrote {@code HTTP/1.1 422 }. The library's 422 and 429 carry
 * their reason phrase, and a runtime that writes the application's phrase shows it; Jetty writes its
 * own table's (a proper one). Jersey in a servlet container cannot pass a phrase on (Servlet 6 has no
 * {@code setStatus(int, String)}): there the container's table decides, and Grizzly's (Payara,
 * GlassFish) has none for 422 and 429, so it writes {@code CUSTOM}; that container is not run here.
 */
class ReasonPhrasesTest {

    @Path("/statuses")
    public static final class Statuses {
        @GET
        @Path("429")
        public Response tooMany() {
            return ProblemResponses.withBody(Response.status(ProblemResponses.TOO_MANY_REQUESTS),
                    ProblemResponses.problem("quota-exceeded", "Too Many Requests", 429, "test", null));
        }

        @GET
        @Path("422")
        public Response unprocessable() {
            return ProblemResponses.withBody(Response.status(ProblemResponses.UNPROCESSABLE_CONTENT),
                    ProblemResponses.problem("exceeds-limit", "Unprocessable Content", 422, "test", null));
        }
    }

    @Test
    void statusLines_of429And422_onJerseyGrizzly_carryTheLibrarysReasonPhrases() {
        try (Containers.Running server = Containers.GRIZZLY.start(new ResourceConfig(Statuses.class))) {
            assertThat(statusLine(server.port(), "/statuses/429")).isEqualTo("HTTP/1.1 429 Too Many Requests");
            assertThat(statusLine(server.port(), "/statuses/422")).isEqualTo("HTTP/1.1 422 Unprocessable Content");
        }
    }

    @Test
    void statusLines_of429And422_onJetty_carryJettysReasonPhrases() {
        try (Containers.Running server = Containers.JETTY.start(new ResourceConfig(Statuses.class))) {
            assertThat(statusLine(server.port(), "/statuses/429")).isEqualTo("HTTP/1.1 429 Too Many Requests");
            assertThat(statusLine(server.port(), "/statuses/422")).isEqualTo("HTTP/1.1 422 Unprocessable Entity");
        }
    }

    private static String statusLine(int port, String path) {
        return RawHttp.get("127.0.0.1", port, path).statusLine();
    }
}
