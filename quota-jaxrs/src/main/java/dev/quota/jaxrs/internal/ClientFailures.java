package dev.quota.jaxrs.internal;

import java.io.EOFException;
import java.net.SocketTimeoutException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.InterruptedByTimeoutException;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * Whether a failure to read a request or write a response is the client's doing: it reset its
 * stream, closed its connection, stopped reading or sending until a timeout, or left its HTTP/2
 * flow-control window shut. One answer for every runtime, from the causes' types and, where a
 * runtime reports them only as a plain {@code IOException}, their messages:
 *
 * <ul>
 *   <li>Jetty: {@code EofException} (an {@code EOFException}), {@code TimeoutException} (idle
 *       timeout, and the demo's write timeout);</li>
 *   <li>Grizzly (Jersey's, Payara's): {@code IOException("Connection is closed")}, "Broken pipe",
 *       {@code TimeoutException}, and a blocking write past the transport's write timeout,
 *       {@code IOException("Write timeout exceeded when trying to flush the data")};</li>
 *   <li>Tomcat, Payara and WildFly servlets: {@code ClientAbortException}, {@code SocketTimeoutException};</li>
 *   <li>Undertow (RESTEasy, WildFly): {@code ClosedChannelException}, "UT010029: Stream is closed", and
 *       a body cut short, "UT000128: Remote peer closed connection before all data could be read";</li>
 *   <li>Open Liberty: {@code AsyncTimeoutException}, "Connection reset by peer";</li>
 *   <li>Vert.x (Quarkus): {@code StreamResetException}, {@code HttpClosedException}, and Quarkus REST's
 *       {@code IOException("Failed to write")} around "Connection has been closed";</li>
 *   <li>Helidon: {@code UncheckedIOException} around a {@code SocketException}, "Connection reset", and
 *       a body cut short, {@code DataReader.InsufficientDataAvailableException}.</li>
 * </ul>
 */
public final class ClientFailures {

    /** Simple names of exception types that only a client's reset, close or silence raises. */
    private static final List<String> CLIENT_TYPES = List.of("EofException", "ClientAbortException",
            "AsyncTimeoutException", "StreamResetException", "HttpClosedException", "ClosedConnectionException",
            "ConnectionClosedException", "InsufficientDataAvailableException");

    /** Lower-case message fragments of a plain {@code IOException} raised by the client's reset or close. */
    private static final List<String> CLIENT_MESSAGES = List.of("broken pipe", "connection reset", "connection is closed",
            "connection was closed", "connection has been closed", "connection closed", "stream is closed", "stream reset", "stream was reset",
            "idle timeout", "write timeout", "rate is too low", "data rate",
            "remote peer closed connection");

    private ClientFailures() {
    }

    /**
     * The cause in {@code failure}'s chain that shows the client reset, closed, stalled or stopped
     * reading, or null when none does (a disk full, a serializer's bug: the server's own failures).
     */
    public static @Nullable Throwable clientCause(@Nullable Throwable failure) {
        // the types first, along the whole chain: a wrapper's message often repeats its cause's
        int depth = 0;
        for (Throwable t = failure; t != null && depth < 32; t = t.getCause() == t ? null : t.getCause(), depth++) {
            if (t instanceof EOFException || t instanceof TimeoutException || t instanceof SocketTimeoutException
                    || t instanceof ClosedChannelException || t instanceof InterruptedByTimeoutException
                    || CLIENT_TYPES.contains(t.getClass().getSimpleName())) {
                return t;
            }
        }
        depth = 0;
        for (Throwable t = failure; t != null && depth < 32; t = t.getCause() == t ? null : t.getCause(), depth++) {
            String message = t.getMessage();
            if (message != null && t instanceof java.io.IOException) {
                String lower = message.toLowerCase(Locale.ROOT);
                for (String fragment : CLIENT_MESSAGES) {
                    if (lower.contains(fragment)) {
                        return t;
                    }
                }
            }
        }
        return null;
    }

    /** {@code cause} as one line of at most 200 characters: its type's simple name and its message. */
    public static String oneLine(Throwable cause) {
        String text = cause.getClass().getSimpleName() + (cause.getMessage() == null ? "" : ": " + cause.getMessage());
        text = text.replaceAll("[\\r\\n\\t]+", " ");
        return text.length() > 200 ? text.substring(0, 200) + "..." : text;
    }
}
