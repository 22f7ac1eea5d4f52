package dev.quota.demo;

import dev.quota.core.internal.LogThrottle;
import dev.quota.jaxrs.internal.ClientFailures;
import java.time.Clock;
import java.time.Duration;
import java.util.logging.Filter;
import java.util.logging.LogRecord;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Jersey logs SEVERE, with a stack trace of about 70 lines, each time it cannot write a response
 * because the client reset its HTTP/2 stream, closed its connection or did not read in time.
 * quota-jaxrs takes those failures before Jersey sees them when they happen inside its writer
 * interceptors; this filter is for the ones outside (Jersey's own error responses, a failure while
 * Jersey closes the stream). That is the client's
 * doing, and a rapid reset makes one such record per stream the server started (170 for one
 * connection cut off after its burst). This filter, on Jersey's responder logger, turns them into
 * the client-error log of quota-jaxrs: one INFO line, no stack trace, on {@value #LOGGER}, sampled
 * (20 at once, then 20 a second, the rest counted in a summary line every 10 s). Every other record
 * passes unchanged.
 */
final class ClientResets implements Filter {

    /** Jersey's logger for failures while writing a response. */
    static final String JERSEY_RESPONDER = "org.glassfish.jersey.server.ServerRuntime$Responder";

    /** The logger the one-line records go to, the one quota-jaxrs logs unreadable bodies on. */
    static final String LOGGER = "dev.quota.client-errors";

    private static final Logger log = LoggerFactory.getLogger(LOGGER);

    /** Held so that the filter set on it is not garbage collected with the logger. */
    private static final java.util.logging.Logger RESPONDER = java.util.logging.Logger.getLogger(JERSEY_RESPONDER);

    private final LogThrottle throttle;

    /** A filter sampling by {@code clock}. */
    ClientResets(Clock clock) {
        this.throttle = new LogThrottle(clock, 20, 20, Duration.ofSeconds(10));
    }

    /** Puts the filter on Jersey's responder logger, once per JVM. */
    static synchronized void install() {
        if (!(RESPONDER.getFilter() instanceof ClientResets)) {
            RESPONDER.setFilter(new ClientResets(Clock.systemUTC()));
        }
    }

    @Override
    public boolean isLoggable(LogRecord record) {
        Throwable gone = clientGone(record.getThrown());
        if (gone == null) {
            return true;
        }
        LogThrottle.Permit permit = throttle.offer();
        if (permit.summary() != null) {
            log.info("{} more responses not written because the client had gone since {} (not logged one by one)",
                    permit.summary().count(), permit.summary().since());
        }
        if (permit.write()) {
            log.info("a response was not written: the client reset its stream, closed its connection or did not"
                    + " read it in time ({})",
                    oneLine(gone));
        }
        return false;
    }

    /**
     * The client's doing among {@code thrown}'s causes (a reset or closed stream, Jetty's idle
     * timeout, the {@link WriteBounds} write timeout), or null.
     */
    static @Nullable Throwable clientGone(@Nullable Throwable thrown) {
        return ClientFailures.clientCause(thrown);
    }

    private static String oneLine(Throwable cause) {
        return ClientFailures.oneLine(cause);
    }
}
