package dev.quota.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quota.testkit.StderrCapture;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ReaderInterceptorContext;
import java.io.EOFException;
import java.io.IOException;
import java.lang.reflect.Proxy;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

class ClientReadFailuresTest {

    /** A reader context whose {@code proceed} fails with {@code failure}, as the runtime's stream does. */
    private static ReaderInterceptorContext failingWith(Exception failure) {
        return (ReaderInterceptorContext) Proxy.newProxyInstance(ClientReadFailuresTest.class.getClassLoader(),
                new Class<?>[] {ReaderInterceptorContext.class}, (proxy, method, args) -> {
                    if (method.getName().equals("proceed")) {
                        throw failure;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }

    /** What the interceptor answers, and what it logged while doing so. */
    private record Answered(Response response, String logged) {
    }

    private static Answered answer(Exception failure) {
        try (StderrCapture capture = new StderrCapture()) {
            try {
                new ClientReadFailures().aroundReadFrom(failingWith(failure));
            } catch (WebApplicationException e) {
                return new Answered(e.getResponse(), capture.text());
            } catch (IOException e) {
                throw new AssertionError("passed on: " + e, e);
            }
            throw new AssertionError("read without failing");
        }
    }

    @Test
    void aBodyThatEndsEarly_is400UnreadableBody_andOneSampledLineWithoutStackTrace() {
        // Grizzly's and Jersey's read of a body whose client closed halfway
        Answered answered = answer(new IOException(new EOFException()));

        assertThat(answered.response().getStatus()).isEqualTo(400);
        assertThat(answered.response().getMediaType().toString()).isEqualTo("application/problem+json");
        assertThat(answered.logged().lines().filter(l -> l.contains("the body of a request could not be read"))).hasSize(1);
        assertThat(answered.logged()).doesNotContain("\tat ");
    }

    @Test
    void aBodyWhoseClientReset_is400UnreadableBody_andOneSampledLine() {
        Answered answered = answer(new IOException("Connection reset by peer"));

        assertThat(answered.response().getStatus()).isEqualTo(400);
        assertThat(answered.logged()).contains("the body of a request could not be read (IOException: Connection reset by peer)");
    }

    @Test
    void aBodyCutShortOnUndertow_is400UnreadableBody() {
        Answered answered = answer(new IOException("UT000128: Remote peer closed connection before all data could be read"));

        assertThat(answered.response().getStatus()).isEqualTo(400);
        assertThat(answered.logged()).contains("the body of a request could not be read (IOException: UT000128");
    }

    @Test
    void aBodyThatStalls_is408BodyTimeout() {
        Answered answered = answer(new IOException(new TimeoutException("Idle timeout expired: 10000/10000 ms")));

        assertThat(answered.response().getStatus()).isEqualTo(408);
    }

    @Test
    void aBodyTheReaderCannotParse_andTheServersOwnFailures_passUnchanged() {
        IOException disk = new IOException("No space left on device");
        IllegalStateException parse = new IllegalStateException("unexpected token");
        WebApplicationException answered = new WebApplicationException(400);

        assertThatThrownBy(() -> new ClientReadFailures().aroundReadFrom(failingWith(disk))).isSameAs(disk);
        assertThatThrownBy(() -> new ClientReadFailures().aroundReadFrom(failingWith(parse))).isSameAs(parse);
        assertThatThrownBy(() -> new ClientReadFailures().aroundReadFrom(failingWith(answered))).isSameAs(answered);
    }
}
