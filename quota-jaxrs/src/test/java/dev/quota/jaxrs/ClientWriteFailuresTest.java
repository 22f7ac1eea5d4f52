package dev.quota.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quota.jaxrs.internal.ClientFailures;
import dev.quota.testkit.StderrCapture;
import jakarta.ws.rs.ext.WriterInterceptorContext;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Proxy;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.io.EofException;
import org.junit.jupiter.api.Test;

class ClientWriteFailuresTest {

    /** A writer context whose {@code proceed} fails with {@code failure}, as the runtime's stream does. */
    private static WriterInterceptorContext failingWith(Exception failure) {
        return (WriterInterceptorContext) Proxy.newProxyInstance(ClientWriteFailuresTest.class.getClassLoader(),
                new Class<?>[] {WriterInterceptorContext.class}, (proxy, method, args) -> {
                    if (method.getName().equals("proceed")) {
                        throw failure;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }

    @Test
    void clientCaused_areTheFailuresEachRuntimeRaisesWhenTheClientResetsClosesOrStalls() {
        // Jetty: idle timeout as its blocking stream reports it, a reset stream
        assertThat(ClientFailures.clientCause(new IOException(new TimeoutException("Idle timeout expired: 30000/30000 ms"))))
                .isInstanceOf(TimeoutException.class);
        assertThat(ClientFailures.clientCause(new RuntimeException(new EofException("reset")))).isInstanceOf(EofException.class);
        // Grizzly: a closed connection, a broken pipe; Helidon: an unchecked reset
        assertThat(ClientFailures.clientCause(new IOException("Connection is closed"))).isNotNull();
        assertThat(ClientFailures.clientCause(new IOException("Broken pipe"))).isNotNull();
        assertThat(ClientFailures.clientCause(new IOException("Write timeout exceeded when trying to flush the data")))
                .isNotNull();
        assertThat(ClientFailures.clientCause(new UncheckedIOException(new java.net.SocketException("Connection reset"))))
                .isNotNull();
        // Quarkus REST: its output stream wraps the closed connection twice
        assertThat(ClientFailures.clientCause(new IOException("java.io.IOException: Failed to write",
                new IOException("Failed to write", new IOException("Connection has been closed"))))).isNotNull();
        // the server's own failures are not the client's
        assertThat(ClientFailures.clientCause(new IOException("No space left on device"))).isNull();
        assertThat(ClientFailures.clientCause(new IllegalStateException("serializer bug"))).isNull();
    }

    @Test
    void aResponseTheClientDidNotTake_isOneSampledLineWithoutStackTrace_notPassedToTheRuntime() throws IOException {
        ClientWriteFailures interceptor = new ClientWriteFailures();
        String logged;
        try (StderrCapture capture = new StderrCapture()) {
            interceptor.aroundWriteTo(failingWith(new IOException(new TimeoutException("Idle timeout expired: 10000/10000 ms"))));
            logged = capture.text();
        }
        assertThat(logged.lines().filter(l -> l.contains("a response was not written"))).hasSize(1);
        assertThat(logged).contains("TimeoutException: Idle timeout expired").doesNotContain("\tat ");
    }

    @Test
    void aServerFailureWhileWriting_passesToTheRuntimeUnchanged() {
        IOException disk = new IOException("No space left on device");
        assertThatThrownBy(() -> new ClientWriteFailures().aroundWriteTo(failingWith(disk))).isSameAs(disk);
    }
}
