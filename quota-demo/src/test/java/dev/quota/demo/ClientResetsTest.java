package dev.quota.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.testkit.MutableClock;
import dev.quota.testkit.StderrCapture;
import java.io.IOException;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.eclipse.jetty.io.EofException;
import org.junit.jupiter.api.Test;

class ClientResetsTest {

    private static LogRecord severe(Throwable thrown) {
        LogRecord record = new LogRecord(Level.SEVERE,
                "An I/O error has occurred while writing a response message entity to the container output stream.");
        record.setThrown(thrown);
        return record;
    }

    @Test
    void aResponseTheClientResetBeforeItWasWritten_isOneSampledLine_notJerseysStackTrace() {
        ClientResets filter = new ClientResets(MutableClock.at("2026-12-01T10:00:00Z"));
        // as Jersey wraps it: MappableException(EofException("reset"))
        LogRecord reset = severe(new RuntimeException(new EofException("reset")));
        boolean passed;
        String logged;
        try (StderrCapture capture = new StderrCapture()) {
            passed = filter.isLoggable(reset);
            logged = capture.text();
        }
        assertThat(passed).isFalse();
        assertThat(logged).contains("INFO client-errors - a response was not written: the client reset its stream, closed its connection or did not read it in time"
                        + " (EofException: reset)")
                .doesNotContain("\tat ");
    }

    @Test
    void aFloodOfResets_writesTwentyLines_whileTheClockStands() {
        ClientResets filter = new ClientResets(MutableClock.at("2026-12-01T10:00:00Z"));
        String logged;
        try (StderrCapture capture = new StderrCapture()) {
            for (int i = 0; i < 170; i++) {
                filter.isLoggable(severe(new RuntimeException(new EofException("reset"))));
            }
            logged = capture.text();
        }
        assertThat(logged.lines().filter(l -> l.contains("a response was not written"))).hasSize(20);
    }

    @Test
    void otherFailures_passAsJerseyLogsThem() {
        ClientResets filter = new ClientResets(MutableClock.at("2026-12-01T10:00:00Z"));
        assertThat(filter.isLoggable(severe(new RuntimeException(new IOException("No space left on device"))))).isTrue();
        assertThat(filter.isLoggable(new LogRecord(Level.SEVERE, "no exception"))).isTrue();
    }
}
