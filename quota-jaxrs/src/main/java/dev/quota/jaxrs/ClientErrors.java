package dev.quota.jaxrs;

import dev.quota.core.internal.LogThrottle;
import dev.quota.jaxrs.internal.ClientFailures;
import dev.quota.jaxrs.internal.ProblemResponses;
import jakarta.ws.rs.core.Response;
import java.io.EOFException;
import java.net.SocketTimeoutException;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The log of errors a client causes, such as a body that ends before its {@code Content-Length} or
 * a connection closed halfway through it: one line each, no stack trace, sampled like the
 * rejection log (20 at once, then 20 a second; the others counted in a summary line every 10 s), so
 * that a client sending 500 truncated bodies a second writes a few kilobytes, not megabytes.
 *
 * <p>Bodies the client did not finish sending are answered here for {@link ClientReadFailures} and
 * {@link AmountInterceptor}. Responses the client did not take (a reset stream, a closed connection, a write timeout) are
 * logged here too, on a budget of their own ({@link ClientWriteFailures}).
 *
 * <p>Logger {@value #LOGGER}, level INFO: nothing here is the server's fault.
 */
final class ClientErrors {

    /** The logger's name. */
    static final String LOGGER = "dev.quota.client-errors";

    private static final Logger log = LoggerFactory.getLogger(LOGGER);
    private static final LogThrottle throttle = new LogThrottle(Clock.systemUTC(), 20, 20, Duration.ofSeconds(10));
    /** The responses' own budget, so that a flood of one kind does not hide the other. */
    private static final LogThrottle responses = new LogThrottle(Clock.systemUTC(), 20, 20, Duration.ofSeconds(10));

    private ClientErrors() {
    }

    /**
     * The answer to a body that failed to arrive because of the client, logged here; null when the
     * failure is not the client's doing. A body that ends early or breaks off (an EOF anywhere in
     * the causes) is a 400 {@code unreadable-body}; one that stalls or trickles in below the
     * server's minimum rate (a timeout among the causes, or the server's data-rate refusal) a 408
     * {@code body-timeout}.
     */
    static @Nullable Response bodyFailure(@Nullable String path, Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            String name = t.getClass().getSimpleName();
            String message = String.valueOf(t.getMessage());
            if (t instanceof EOFException || name.contains("Eof")) {
                unreadableBody(path, t);
                return ProblemResponses.unreadableBody(path);
            }
            if (t instanceof TimeoutException || t instanceof SocketTimeoutException
                    || message.contains("data rate")) {
                unreadableBody(path, t);
                return ProblemResponses.bodyTimeout(path);
            }
        }
        return null;
    }

    /** Logs, sampled, that the body of a request to {@code path} could not be read: {@code cause} in one line. */
    static void unreadableBody(@Nullable String path, Throwable cause) {
        if (!log.isInfoEnabled()) {
            return;
        }
        LogThrottle.Permit permit = throttle.offer();
        if (permit.summary() != null) {
            log.info("{} more unreadable request bodies since {} (not logged one by one)", permit.summary().count(),
                    permit.summary().since());
        }
        if (permit.write()) {
            log.info("the body of a request{} could not be read ({}); answering 4xx", path == null ? "" : " to " + path,
                    oneLine(cause));
        }
    }

    /**
     * Logs, sampled, that a response was not written because the client reset its stream, closed
     * its connection or did not read it in time: {@code cause} in one line, no stack trace.
     */
    static void responseNotWritten(Throwable cause) {
        if (!log.isInfoEnabled()) {
            return;
        }
        LogThrottle.Permit permit = responses.offer();
        if (permit.summary() != null) {
            log.info("{} more responses not written because the client had gone since {} (not logged one by one)",
                    permit.summary().count(), permit.summary().since());
        }
        if (permit.write()) {
            log.info("a response was not written: the client reset its stream, closed its connection or did not"
                    + " read it in time ({})", ClientFailures.oneLine(cause));
        }
    }

    private static String oneLine(Throwable cause) {
        String text = cause.getClass().getSimpleName() + (cause.getMessage() == null ? "" : ": " + cause.getMessage());
        text = text.replaceAll("[\\r\\n\\t]+", " ");
        return text.length() > 200 ? text.substring(0, 200) + "..." : text;
    }
}
