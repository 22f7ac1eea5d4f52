package dev.quota.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.testkit.StderrCapture;
import java.io.IOException;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.eclipse.jetty.io.EofException;
import org.junit.jupiter.api.Test;

class JerseyResponderLogTest {

    private static LogRecord severe(Throwable thrown) {
        LogRecord record = new LogRecord(Level.SEVERE,
                "An I/O error has occurred while writing a response message entity to the container output stream.");
        record.setThrown(thrown);
        return record;
    }

    /** What {@code filter} answers for {@code record}, and what it logged. */
    private record Filtered(boolean passed, String logged) {
    }

    private static Filtered filter(JerseyResponderLog filter, LogRecord record) {
        try (StderrCapture capture = new StderrCapture()) {
            boolean passed = filter.isLoggable(record);
            return new Filtered(passed, capture.text());
        }
    }

    @Test
    void aResponseTheClientResetBeforeJerseyWroteIt_isOneSampledLine_notJerseysStackTrace() {
        // as Jersey wraps it: MappableException(EofException("reset"))
        Filtered filtered = filter(new JerseyResponderLog(null), severe(new RuntimeException(new EofException("reset"))));

        assertThat(filtered.passed()).isFalse();
        assertThat(filtered.logged()).contains("INFO dev.quota.client-errors - a response was not written: the client reset its"
                + " stream, closed its connection or did not read it in time (EofException: reset)").doesNotContain("\tat ");
    }

    @Test
    void aBodyCutShort_thatFailsAgainWhenJerseyClosesIt_isOneSampledLineOfAnUnreadableBody() {
        IOException cutShort = new IOException("Remote peer closed connection before all data could be read");
        cutShort.setStackTrace(new StackTraceElement[] {
            new StackTraceElement("org.glassfish.jersey.message.internal.InboundMessageContext", "readEntity", null, 698)});
        LogRecord warning = new LogRecord(Level.WARNING, "An exception mapping did not successfully produce and processed"
                + " a response. Logging the exception propagated to the default exception mapper.");
        warning.setThrown(cutShort);

        Filtered filtered = filter(new JerseyResponderLog(null), warning);

        assertThat(filtered.passed()).isFalse();
        assertThat(filtered.logged()).contains("the body of a request could not be read (IOException: Remote peer closed");
    }

    @Test
    void otherFailures_passAsJerseyLogsThem_throughTheFilterTheLoggerHadBefore() {
        JerseyResponderLog alone = new JerseyResponderLog(null);
        JerseyResponderLog chained = new JerseyResponderLog(record -> !record.getMessage().contains("muted"));

        assertThat(alone.isLoggable(severe(new RuntimeException(new IOException("No space left on device"))))).isTrue();
        assertThat(alone.isLoggable(new LogRecord(Level.SEVERE, "no exception"))).isTrue();
        assertThat(chained.isLoggable(new LogRecord(Level.SEVERE, "muted by the application"))).isFalse();
        assertThat(chained.isLoggable(new LogRecord(Level.SEVERE, "no exception"))).isTrue();
    }

    @Test
    void installed_whenTheApplicationBringsJersey_once_andNotOnHelidonsLoggerWithoutHelidon() {
        JerseyResponderLog.installIfJerseyIsTheApplications();
        JerseyResponderLog.installIfJerseyIsTheApplications();

        // Jersey is on this test's class path, loaded by the same loader as the library
        Logger responder = Logger.getLogger(JerseyResponderLog.RESPONDER);
        assertThat(responder.getFilter()).isInstanceOf(JerseyResponderLog.class);
        assertThat(((JerseyResponderLog) responder.getFilter())).extracting("previous").isNull();
        assertThat(Logger.getLogger(JerseyResponderLog.HELIDON_CONNECTION).getFilter()).isNull();
    }
}
