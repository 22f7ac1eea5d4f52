package dev.quota.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.testkit.Await;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Redis scripts a transfer costs in the demo (Jetty 12, rule {@code transfers} with amount limits
 * per day and {@code concurrency: 5}), read from Redis's own {@code MONITOR} stream, as an operator
 * sees them: a transfer whose JSON body is sent with its headers is one script that takes every
 * bucket (plan, day, rule, shared, amount, in-flight lease), then its lease comes back in one more,
 * after the response; a transfer whose body comes later is charged on arrival and decided again
 * when read (two scripts), then its lease comes back.
 */
class ScriptsPerTransferTest {

    private static final String BODY = "{\"from\":\"ACC-1001\",\"to\":\"ACC-2001\",\"amount\":\"1.00\",\"currency\":\"EUR\"}";
    /** A customer's keys (the test's only customer), not the instance heartbeat's or the failed-key guard's. */
    private static final String CUSTOMER_TAG = "quota:{c.";

    static RunningDemo demo;
    private Monitor monitor;

    @BeforeAll
    static void start() {
        demo = RunningDemo.start();
        // Redis learns the script here (NOSCRIPT, then EVAL once): the tests count each script once;
        // its lease return is awaited, so that it cannot show up in a test's count
        try (Monitor warmUp = new Monitor(demo.redis.host(), demo.redis.port())) {
            assertThat(transfer()).startsWith("HTTP/1.1 201");
            List<Integer> scripts = warmUp.scriptsTouching(CUSTOMER_TAG, 3);
            assertThat(scripts).as("EVALSHA refused, EVAL, the lease return").endsWith(1);
        }
    }

    @AfterAll
    static void stop() {
        if (demo != null) {
            demo.close();
        }
    }

    @BeforeEach
    void nextDay() {
        demo.nextDay();
        monitor = new Monitor(demo.redis.host(), demo.redis.port());
    }

    @AfterEach
    void closeMonitor() {
        monitor.close();
    }

    @Test
    void transferSentWithItsBody_isOneScriptWithEveryBucket_thenOneLeaseReturn() {
        int transfers = 10; // the free plan's transfers per minute
        for (int i = 0; i < transfers; i++) {
            assertThat(transfer()).startsWith("HTTP/1.1 201");
        }
        List<Integer> scripts = monitor.scriptsTouching(CUSTOMER_TAG, 2 * transfers);

        // each transfer: one script over every bucket; its lease return (one key) goes after its
        // response, so it may come after the next transfer's script
        List<Integer> decisions = scripts.stream().filter(keys -> keys > 1).toList();
        List<Integer> returns = scripts.stream().filter(keys -> keys == 1).toList();
        assertThat(decisions).as("one script per transfer, keys %s", scripts).hasSize(transfers);
        assertThat(decisions.get(0)).as("plan, day, rule, shared, amount, lease sets").isGreaterThanOrEqualTo(5);
        assertThat(returns).as("one lease return per transfer").hasSize(transfers);
        assertThat(monitor.scriptsTouching(CUSTOMER_TAG, 1, Duration.ofMillis(500))).as("nothing more").isEmpty();
        System.out.printf("scripts per transfer, body sent with its headers: %d on the request path (%d keys),"
                + " then %d lease return (1 key)%n", decisions.size() / transfers, decisions.get(0),
                returns.size() / transfers);
    }

    @Test
    void transferWhoseBodyComesLater_isChargedOnArrival_thenDecidedWhenRead_thenOneLeaseReturn() throws IOException {
        String padded = BODY + " ".repeat(SlowTransfer.LENGTH - BODY.length());
        try (Socket socket = SlowTransfer.start(demo.api.getPort(), "127.0.0.1", "X-API-Key", AttacksTest.FREE)) {
            List<Integer> onArrival = monitor.scriptsTouching(CUSTOMER_TAG, 1);
            socket.getOutputStream().write(padded.substring(1).getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
            assertThat(SlowTransfer.statusLine(socket)).startsWith("HTTP/1.1 201");
            List<Integer> rest = monitor.scriptsTouching(CUSTOMER_TAG, 2);
            assertThat(monitor.scriptsTouching(CUSTOMER_TAG, 1, Duration.ofMillis(500))).as("nothing more").isEmpty();
            System.out.printf("scripts per transfer, body later: %d (keys %s, then %s)%n", onArrival.size()
                    + rest.size(), onArrival, rest);
            assertThat(onArrival).as("plan, day, lease sets on arrival").containsExactly(3);
            assertThat(rest).as("the rest when read, and the lease return after the response").hasSize(2)
                    .contains(1);
        }
    }

    /** A transfer whose head and body go out in one write; the status line of its answer. */
    private static String transfer() {
        byte[] body = BODY.getBytes(StandardCharsets.UTF_8);
        String head = "POST /api/v1/transfers HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                + "Content-Type: application/json\r\nContent-Length: " + body.length + "\r\nX-API-Key: "
                + AttacksTest.FREE + "\r\n\r\n";
        try (Socket socket = new Socket()) {
            socket.setSoTimeout(20_000);
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), demo.api.getPort()), 5_000);
            byte[] request = new byte[head.length() + body.length];
            System.arraycopy(head.getBytes(StandardCharsets.ISO_8859_1), 0, request, 0, head.length());
            System.arraycopy(body, 0, request, head.length(), body.length);
            OutputStream out = socket.getOutputStream();
            out.write(request);
            out.flush();
            return SlowTransfer.statusLine(socket);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Redis's {@code MONITOR} stream, read on a connection of its own. */
    private static final class Monitor implements AutoCloseable {
        private final Socket socket;
        private final InputStream in;
        /** The line read so far: kept across read time-outs. */
        private final ByteArrayOutputStream partial = new ByteArrayOutputStream();

        Monitor(String host, int port) {
            try {
                socket = new Socket(host, port);
                socket.setSoTimeout(200);
                socket.getOutputStream().write("MONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
                socket.getOutputStream().flush();
                in = new BufferedInputStream(socket.getInputStream());
                Await.until(Duration.ofSeconds(5), () -> "+OK".equals(line()), () -> "MONITOR answered +OK");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** The next line, or null when none came within the read timeout. */
        private String line() {
            try {
                for (int b = in.read(); b >= 0; b = in.read()) {
                    if (b == '\n') {
                        String line = partial.toString(StandardCharsets.UTF_8).strip();
                        partial.reset();
                        return line;
                    }
                    partial.write(b);
                }
                throw new IllegalStateException("Redis closed the MONITOR connection");
            } catch (SocketTimeoutException e) {
                return null;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /**
         * The key counts of the next {@code count} scripts sent by a client ({@code EVALSHA}, or
         * {@code EVAL}) that name a key with {@code tag}, in the order Redis ran them.
         */
        List<Integer> scriptsTouching(String tag, int count) {
            List<Integer> keys = scriptsTouching(tag, count, Duration.ofSeconds(10));
            assertThat(keys).as("%d scripts for %s", count, tag).hasSize(count);
            return keys;
        }

        /** As {@link #scriptsTouching(String, int)}, those that came within {@code within}: maybe fewer. */
        List<Integer> scriptsTouching(String tag, int count, Duration within) {
            List<Integer> keys = new ArrayList<>();
            long deadline = System.nanoTime() + within.toNanos();
            while (keys.size() < count && System.nanoTime() < deadline) {
                String line = line();
                if (line == null) {
                    continue;
                }
                // +1733234567.123456 [0 127.0.0.1:54321] "EVALSHA" "<sha>" "3" "quota:{c.x}:..." ...
                String lower = line.toLowerCase(Locale.ROOT);
                if ((lower.contains("] \"evalsha\" ") || lower.contains("] \"eval\" ")) && !lower.contains(" lua] ")
                        && line.contains(tag)) {
                    String[] words = line.substring(line.indexOf("] \"") + 2).split("\" \"");
                    keys.add(Integer.parseInt(words[2]));
                }
            }
            return keys;
        }

        @Override
        public void close() {
            try {
                socket.close();
            } catch (IOException e) {
                // closing
            }
        }
    }
}
