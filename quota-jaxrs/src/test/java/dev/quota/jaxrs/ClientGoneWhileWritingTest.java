package dev.quota.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.QuotaService;
import dev.quota.core.store.InMemoryStore;
import dev.quota.testkit.Await;
import dev.quota.testkit.MutableClock;
import dev.quota.testkit.StderrCapture;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.StreamingOutput;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A client that goes away while its response is being written (it stops reading, then resets its
 * connection), against real servers: the runtime's write fails for the client's fault, and that is
 * one sampled line on {@link ClientErrors}, with no stack trace and nothing from the runtime at
 * WARNING or above. Without {@link ClientWriteFailures}, Jersey logs SEVERE "An I/O error
 * has occurred while writing a response message entity" with its stack trace for each.
 */
class ClientGoneWhileWritingTest {

    private static final byte[] CHUNK = new byte[64 * 1024];
    private static final AtomicLong written = new AtomicLong();
    private static final String NOT_WRITTEN = "a response was not written";

    /** A download of 256 MB, written a chunk at a time, far more than the socket buffers hold. */
    @Path("/download")
    public static final class Download {
        @GET
        @Produces(MediaType.APPLICATION_OCTET_STREAM)
        public StreamingOutput download() {
            return out -> {
                for (int i = 0; i < 4096; i++) {
                    out.write(CHUNK);
                    written.addAndGet(CHUNK.length);
                }
            };
        }
    }

    private final List<LogRecord> serverLog = new CopyOnWriteArrayList<>();
    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord record) {
            if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
                serverLog.add(record);
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @BeforeEach
    void listen() {
        written.set(0);
        Logger.getLogger("").addHandler(handler);
    }

    @AfterEach
    void stopListening() {
        Logger.getLogger("").removeHandler(handler);
    }

    @ParameterizedTest
    @EnumSource(value = Containers.class, names = {"GRIZZLY", "JETTY"})
    void aClientThatStopsReadingThenResets_isOneSampledLine_noStackTrace_noWarningFromTheRuntime(
            Containers container) throws IOException {
        QuotaService service = QuotaService.builder()
                .store(InMemoryStore.builder().clock(MutableClock.at(TestConfig.NOON)).build())
                .config(TestConfig.standard().build()).clock(MutableClock.at(TestConfig.NOON)).build();
        ResourceConfig app = new ResourceConfig().register(Download.class)
                .register(QuotaFeature.builder(service).clientAddress(Fixture.PEER).build());
        String logged;
        try (Containers.Running server = container.start(app); StderrCapture stderr = new StderrCapture()) {
            serverLog.clear(); // what the server said while starting (Jersey's WADL notice) is not this test's
            try (Socket socket = new Socket()) {
                socket.setReceiveBufferSize(4096);
                socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.port()), 5_000);
                OutputStream out = socket.getOutputStream();
                out.write(("GET /download HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: " + TestConfig.ACME_KEY
                        + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
                Await.until(Duration.ofSeconds(30), () -> written.get() >= 1 << 20,
                        () -> "the server writing the download (" + written.get() + " bytes so far)");
                socket.setSoLinger(true, 0); // close with a reset, as a client that gives up does
            }
            // the write fails at once; what follows is logged by the thread that wrote
            Await.until(Duration.ofSeconds(30), () -> !serverLog.isEmpty() || stderr.text().contains(NOT_WRITTEN),
                    () -> "a log line about the download (" + written.get() + " bytes written)");
            logged = stderr.text();
        } finally {
            service.close();
        }

        assertThat(written.get()).as("the download was cut, not written whole").isLessThan(4096L * CHUNK.length);
        assertThat(serverLog).as("WARNING or above from the runtime")
                .extracting(r -> r.getLoggerName() + ": " + r.getMessage()).isEmpty();
        assertThat(logged.lines().filter(line -> line.contains(NOT_WRITTEN))).as("sampled lines").hasSize(1);
        assertThat(logged).as("stderr").doesNotContain("\tat ").doesNotContain("SEVERE");
    }

    @ParameterizedTest
    @EnumSource(value = Containers.class, names = {"GRIZZLY", "JETTY"})
    void aClientThatStopsReading_isCutByTheServersWriteTimeout_oneSampledLine_noStackTrace(Containers container)
            throws IOException {
        QuotaService service = QuotaService.builder()
                .store(InMemoryStore.builder().clock(MutableClock.at(TestConfig.NOON)).build())
                .config(TestConfig.standard().build()).clock(MutableClock.at(TestConfig.NOON)).build();
        ResourceConfig app = new ResourceConfig().register(Download.class)
                .register(QuotaFeature.builder(service).clientAddress(Fixture.PEER).build());
        String logged;
        try (Containers.Running server = container.start(app, Duration.ofSeconds(1));
             StderrCapture stderr = new StderrCapture(); Socket socket = new Socket()) {
            serverLog.clear();
            socket.setReceiveBufferSize(4096);
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.port()), 5_000);
            OutputStream out = socket.getOutputStream();
            out.write(("GET /download HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: " + TestConfig.ACME_KEY
                    + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            // never read: the server's write waits for the socket until its write timeout ends it
            Await.until(Duration.ofSeconds(60), () -> !serverLog.isEmpty() || stderr.text().contains(NOT_WRITTEN),
                    () -> "a log line about the download (" + written.get() + " bytes written)");
            logged = stderr.text();
        } finally {
            service.close();
        }

        assertThat(written.get()).as("the download was cut, not written whole").isLessThan(4096L * CHUNK.length);
        assertThat(serverLog).as("WARNING or above from the runtime")
                .extracting(r -> r.getLoggerName() + ": " + r.getMessage()).isEmpty();
        assertThat(logged.lines().filter(line -> line.contains(NOT_WRITTEN))).as("sampled lines").hasSize(1);
        assertThat(logged).as("stderr").doesNotContain("\tat ").doesNotContain("SEVERE");
    }
}
