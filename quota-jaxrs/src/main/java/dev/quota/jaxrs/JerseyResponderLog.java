package dev.quota.jaxrs;

import dev.quota.jaxrs.internal.ClientFailures;
import java.util.logging.Filter;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.jspecify.annotations.Nullable;

/**
 * Jersey logs, with a stack trace of about 60 lines, each failure it meets outside the writer and
 * reader interceptors: SEVERE when it cannot finish writing a response (its own error responses,
 * the close of the stream after the entity) and WARNING when a body's stream fails on close
 * (Helidon's does for a body cut short, and Helidon then logs the failure again, as a WARNING of its
 * error handlers'). When the failure is the client's doing ({@link ClientFailures}: a reset, a closed
 * connection, a timeout) this filter, on Jersey's responder logger and on Helidon's error handlers'
 * logger, turns it into the same sampled INFO line as {@link ClientWriteFailures} and
 * {@link ClientReadFailures}, on {@link ClientErrors}; every other record passes, to the filter the
 * logger had before, if any.
 *
 * <p>Put on those loggers by {@link QuotaFeature} when the application brings Jersey itself (Jersey
 * on Grizzly or Jetty, Helidon): the loggers then live as long as the application. Where Jersey is
 * the server's (Payara), the server logs these failures its own way, and a filter of the
 * application's would outlive its undeployment.
 */
final class JerseyResponderLog implements Filter {

    /** Jersey's logger for failures while it processes and writes a response. */
    static final String RESPONDER = "org.glassfish.jersey.server.ServerRuntime$Responder";
    private static final String SERVER_RUNTIME = "org.glassfish.jersey.server.ServerRuntime";
    /** Helidon's logger for a request that failed after its response was sent (and its class). */
    static final String HELIDON_CONNECTION = "io.helidon.webserver.http.ErrorHandlers";

    /** Held so that the filters set on them are not garbage collected with the loggers. */
    private static final Logger LOGGER = Logger.getLogger(RESPONDER);
    private static final Logger HELIDON = Logger.getLogger(HELIDON_CONNECTION);

    private final @Nullable Filter previous;

    JerseyResponderLog(@Nullable Filter previous) {
        this.previous = previous;
    }

    /**
     * Puts the filter on Jersey's responder logger when this application brings Jersey, and on
     * Helidon's when it runs on Helidon; once per logger.
     */
    static synchronized void installIfJerseyIsTheApplications() {
        if (!applications(SERVER_RUNTIME)) {
            return; // no Jersey, or the server's
        }
        install(LOGGER);
        if (applications(HELIDON_CONNECTION)) {
            install(HELIDON);
        }
    }

    /** Whether {@code className} is on the class path, loaded by the loader that loaded this library. */
    private static boolean applications(String className) {
        ClassLoader ours = JerseyResponderLog.class.getClassLoader();
        try {
            return Class.forName(className, false, ours).getClassLoader() == ours;
        } catch (ClassNotFoundException | LinkageError absent) {
            return false;
        }
    }

    private static void install(Logger logger) {
        if (!(logger.getFilter() instanceof JerseyResponderLog)) {
            logger.setFilter(new JerseyResponderLog(logger.getFilter()));
        }
    }

    @Override
    public boolean isLoggable(LogRecord record) {
        Throwable cause = ClientFailures.clientCause(record.getThrown());
        if (cause == null) {
            return previous == null || previous.isLoggable(record);
        }
        if (whileReading(record.getThrown())) {
            ClientErrors.unreadableBody(null, cause);
        } else {
            ClientErrors.responseNotWritten(cause);
        }
        return false;
    }

    /** Whether {@code thrown} came from reading a request's body: Jersey's {@code readEntity} on a stack of its chain. */
    private static boolean whileReading(@Nullable Throwable thrown) {
        int depth = 0;
        for (Throwable t = thrown; t != null && depth < 32; t = t.getCause() == t ? null : t.getCause(), depth++) {
            for (StackTraceElement frame : t.getStackTrace()) {
                if (frame.getMethodName().equals("readEntity")) {
                    return true;
                }
            }
        }
        return false;
    }
}
