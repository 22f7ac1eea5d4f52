package dev.quota.jaxrs;

import dev.quota.jaxrs.internal.BodyProbe;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.HttpHeaders;
import java.io.IOException;

/**
 * Whether a request's body is all here already, so that its {@link AmountLimit} decision need not
 * be taken in two steps: a body of a declared {@code Content-Length} of at most
 * {@link QuotaFeature.Builder#arrivedBodyBytes} bytes (default {@value #DEFAULT_MOST}), not
 * awaited behind {@code Expect: 100-continue}, that the server has already read from the
 * connection. Never waits for a byte: what the runtime has not read yet counts as not there.
 *
 * <p>How it is told, per runtime: Jetty 12 (Jersey's Jetty container) reads what content the
 * connection already holds without blocking ({@link BodyProbe}, left by the Jetty adapter); Jersey
 * on Grizzly, and any runtime whose entity stream answers {@code available()} with the bytes it
 * holds, by {@code available()} against the length. Elsewhere {@code available()} answers 0 and
 * the body is decided in two steps, as before: the safe path.
 */
final class ArrivedBodies {

    /** The default largest body decided in one step: 16 KiB, far above a JSON transfer's size. */
    static final int DEFAULT_MOST = 16 * 1024;

    private ArrivedBodies() {
    }

    /** Whether all of {@code request}'s body, of at most {@code most} bytes, is already here. */
    static boolean arrived(ContainerRequestContext request, int most) {
        if (most <= 0 || request.getHeaderString("Expect") != null) {
            return false; // a client told to wait for 100 Continue sends nothing until the body is read
        }
        String declared = request.getHeaderString(HttpHeaders.CONTENT_LENGTH);
        if (declared == null) {
            return false; // chunked: its end is not known before it is read
        }
        long length;
        try {
            length = Long.parseLong(declared.trim());
        } catch (NumberFormatException e) {
            return false;
        }
        if (length <= 0 || length > most) {
            return false;
        }
        if (request.getProperty(BodyProbe.PROPERTY) instanceof BodyProbe probe) {
            return probe.arrived(request, (int) length);
        }
        try {
            return request.getEntityStream().available() >= length;
        } catch (IOException e) {
            return false; // the read that follows meets the same failure and answers it
        }
    }
}
