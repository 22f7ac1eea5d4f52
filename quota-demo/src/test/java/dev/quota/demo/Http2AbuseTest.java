package dev.quota.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.jaxrs.internal.ClientFailures;
import dev.quota.testkit.Await;
import dev.quota.testkit.RawHttp;
import dev.quota.testkit.StderrCapture;
import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One HTTP/2 client against the demo, over raw frames from its own loopback address: a rapid
 * reset flood is cut off after a bounded number of streams and leaves the API answering; header
 * blocks over the limit are refused on their own stream, and neither the connection nor the
 * listener is left refusing everything after them. In each attack another customer on another
 * address asks for its account every 100 ms ({@link LegitimateCaller}), answered within 1 s each time.
 */
class Http2AbuseTest {

    private static final String KEY = "X-API-Key";
    private static final String FREE = "demo-free-key";
    private static final int FLOOD = 5_000;
    /** GOAWAY ENHANCE_YOUR_CALM (RFC 9113, section 7). */
    private static final int ENHANCE_YOUR_CALM = 0xb;

    static RunningDemo demo;
    static URI api;

    @BeforeAll
    static void start() {
        demo = RunningDemo.start();
        api = demo.app.baseUris().get(0);
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
    }

    private static String authority(URI uri) {
        return uri.getHost() + ":" + uri.getPort();
    }

    /**
     * Decisions taken so far for callers without a key (the attacker's plan; the legitimate caller
     * is on another), from the instance's {@code quota_decisions_total}.
     */
    private static long decisions() {
        RawHttp.Answer metrics = RawHttp.get("127.0.0.1", demo.management.getPort(), "/metrics");
        long total = 0;
        for (String line : metrics.body().split("\n")) {
            if (line.startsWith("quota_decisions_total{") && line.contains("plan=\"anonymous\"")) {
                total += (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return total;
    }

    @Test
    void rapidResetFlood_isCutOffAfterABoundedNumberOfStreams_andTheApiKeepsAnswering_regressionForRapidReset()
            throws IOException {
        long before = decisions();
        int sent;
        int goAway;
        // what Jersey's responder logger lets through: never a stack trace for a stream the client reset
        java.util.logging.Logger responder = java.util.logging.Logger.getLogger("org.glassfish.jersey.server.ServerRuntime$Responder");
        List<LogRecord> passed = new CopyOnWriteArrayList<>();
        Handler recorder = new Handler() {
            @Override
            public void publish(LogRecord record) {
                passed.add(record);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        responder.addHandler(recorder);
        long processed;
        RawHttp2.Response legitimate;
        long worst;
        List<Integer> callerStatuses;
        try (LegitimateCaller caller = LegitimateCaller.start("127.0.0.68", api.getPort())) {
            caller.awaitMore(1);
            try (RawHttp2 attacker = RawHttp2.connect(api, InetAddress.getByName("127.0.0.61"))) {
                sent = attacker.rapidReset(authority(api), "/api/v1/rates", FLOOD);
                goAway = attacker.awaitGoAway();
            } finally {
                responder.removeHandler(recorder);
            }
            // the streams the server started before it closed the connection are all decided by now
            AtomicLong last = new AtomicLong(-1);
            Await.until(Duration.ofSeconds(20), () -> last.getAndSet(decisions()) == last.get(),
                    () -> "the decision count to settle");
            processed = last.get() - before;

            try (RawHttp2 client = RawHttp2.connect(api, InetAddress.getByName("127.0.0.62"))) {
                legitimate = client.get(authority(api), "/api/v1/accounts/ACC-1001", KEY, FREE);
            }
            caller.awaitMore(5);
            worst = caller.worstMillis();
            callerStatuses = caller.statuses();
        }

        // GOAWAY, or a reset that swallowed it while the flood was still being written
        assertThat(goAway).as("GOAWAY error code").isIn(ENHANCE_YOUR_CALM, -1);
        assertThat(processed).as("streams decided out of %d sent", sent)
                .isLessThanOrEqualTo(4L * ApiServer.MAX_CONTROL_FRAMES_PER_SECOND);
        assertThat(legitimate.status()).isEqualTo(200);
        assertThat(worst).as("the other customer's worst latency in ms, asking every 100 ms throughout").isLessThan(1_000);
        assertThat(callerStatuses).isNotEmpty().containsOnly(200);
        assertThat(responder.getFilter()).as("quota-jaxrs's filter on Jersey's responder log").isNotNull()
                .extracting(filter -> filter.getClass().getSimpleName()).isEqualTo("JerseyResponderLog");
        assertThat(passed).as("Jersey records with a stack trace of a reset stream")
                .noneMatch(r -> ClientFailures.clientCause(r.getThrown()) != null);
    }

    /**
     * Two connections from one address announce a stream window of 0, open 64 requests each, and
     * keep opening their streams' windows a byte at a time (60 window updates a second, round the
     * streams still open, under the server's cut of control frames), which keeps every stream from
     * Jetty's idle timeout: before the write bounds, each answer held a worker on a write that could not
     * complete and every other caller waited about 45 s. Now the answers are written behind their
     * workers, a connection and an address may have only a few writes waiting, and a write the
     * client does not take within the write timeout (10 s, the default) resets its stream.
     *
     * <p>A neighbour of the attacker (its address, over HTTP/1.1, as behind one NAT) is answered
     * before the stall and while the attacker's waiting writes fill the address's bound (observed
     * on the server's {@link WriteBounds}): what an HTTP/1.1 connection writes behind counts
     * against its connection only.
     *
     * <p>The legitimate caller (another address, a key) sends a request every 100 ms throughout;
     * its worst latency must stay under 1 s, the target of the issue this reproduces: it is about
     * 10 to 30 ms on an idle machine, so the margin is for a loaded one.
     *
     * <p>The log of the attack, on slf4j and on {@code java.util.logging} (Jersey's): the answers
     * the attacker did not take are sampled INFO lines on {@code dev.quota.client-errors}, never a
     * SEVERE record or a stack trace (before: Jersey's SEVERE "An I/O error has occurred while
     * writing a response message entity" with about 60 lines of stack for each stream).
     */
    @Test
    void zeroWindowClients_holdNoWorker_andTheirStreamsAreReset_regressionForTrickledWindowUpdates() throws Exception {
        String neighbourOutcome;
        int waitingAfter;
        InetAddress attackerAddress = InetAddress.getByName("127.0.0.67");
        List<RawHttp2> attackers = new ArrayList<>();
        List<RawHttp2.Watch> watches = new ArrayList<>();
        List<List<Integer>> streams = new ArrayList<>();
        ScheduledExecutorService trickle = Executors.newSingleThreadScheduledExecutor();
        List<Long> latencies = new ArrayList<>();
        List<Integer> statuses = new ArrayList<>();
        String log;
        List<LogRecord> julLog;
        // warm: the first request of a run pays for class loading and connection set-up, not the attack
        assertThat(Http.get(api.resolve("/api/v1/accounts/ACC-1001"), KEY, FREE).statusCode()).isEqualTo(200);
        java.util.logging.Logger root = java.util.logging.Logger.getLogger("");
        Recorder recorder = new Recorder();
        root.addHandler(recorder);
        long attackStart = System.nanoTime();
        long attackSeconds;
        try (StderrCapture stderr = new StderrCapture()) {
            for (int c = 0; c < 2; c++) {
                RawHttp2 attacker = RawHttp2.connect(api, attackerAddress, 0);
                attackers.add(attacker);
                watches.add(attacker.watch());
                List<Integer> opened = new ArrayList<>();
                streams.add(opened);
                for (int i = 0; i < 64; i++) {
                    opened.add(attacker.open(authority(api), "/api/v1/rates"));
                }
            }
            // one byte of window at a time, 6 streams every 100 ms round the streams the server has
            // not ended: 60 frames a second, under the server's cut of control frames (as an
            // attacker keeps it), so it is the write bounds that end the streams, never that cut
            int[] next = {0};
            trickle.scheduleWithFixedDelay(() -> {
                List<int[]> open = new ArrayList<>();
                for (int c = 0; c < attackers.size(); c++) {
                    for (int stream : streams.get(c)) {
                        if (!watches.get(c).ended(stream)) {
                            open.add(new int[] {c, stream});
                        }
                    }
                }
                for (int k = 0; k < 6 && !open.isEmpty(); k++) {
                    int[] pick = open.get(Math.floorMod(next[0]++, open.size()));
                    try {
                        attackers.get(pick[0]).windowUpdate(pick[1], 1);
                    } catch (IOException closed) {
                        return;
                    }
                }
            }, 100, 100, TimeUnit.MILLISECONDS);

            // a neighbour on the attacker's address (a colleague behind the same NAT), over HTTP/1.1:
            // answered before the attack holds anything, and once the attacker's stalled writes fill
            // the address's bound
            String early = neighbour(attackerAddress);
            WriteBounds bounds = demo.app.writeBounds();
            Await.until(Duration.ofSeconds(30),
                    () -> bounds.waiting(attackerAddress) >= WriteBounds.MAX_WAITING_PER_ADDRESS,
                    () -> "the attacker's writes to fill its address's bound (waiting now: "
                            + bounds.waiting(attackerAddress) + "; streams ended per connection: "
                            + ended(watches, streams) + "; connections: " + closedBy(watches) + ")");
            String late = neighbour(attackerAddress);
            waitingAfter = bounds.waiting(attackerAddress);
            long start = System.nanoTime();
            long end = start + TimeUnit.SECONDS.toNanos(25);
            while (System.nanoTime() < end) {
                long sent = System.nanoTime();
                statuses.add(Http.get(api.resolve("/api/v1/accounts/ACC-1001"), KEY, FREE).statusCode());
                latencies.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sent));
                boolean allEnded = true;
                for (int c = 0; c < attackers.size(); c++) {
                    RawHttp2.Watch watch = watches.get(c);
                    allEnded &= streams.get(c).stream().allMatch(watch::ended);
                }
                if (allEnded && System.nanoTime() - start > TimeUnit.SECONDS.toNanos(3)) {
                    break;
                }
                Thread.sleep(100); // the legitimate caller's pace
            }
            neighbourOutcome = early + " / " + late;
            // a saturated machine may not have ended every stream within the measured 25 s: the
            // claim is that none is held for ever, so wait for the rest, still trickling
            Await.until(Duration.ofSeconds(90), () -> {
                for (int c = 0; c < attackers.size(); c++) {
                    if (!streams.get(c).stream().allMatch(watches.get(c)::ended)) {
                        return false;
                    }
                }
                return true;
            }, () -> "every attacking stream ended by the server");
            log = stderr.text();
            attackSeconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - attackStart) + 1;
        } finally {
            root.removeHandler(recorder);
            trickle.shutdownNow();
            for (RawHttp2 attacker : attackers) {
                attacker.close();
            }
        }
        julLog = recorder.records;

        assertThat(neighbourOutcome).as("a caller on the attacker's address, over HTTP/1.1, before and during the stall")
                .matches("HTTP/1.1 (200|429) [^/]* / HTTP/1.1 (200|429) .*");
        assertThat(waitingAfter).as("the attacker's writes waiting when the neighbour was answered")
                .isEqualTo(WriteBounds.MAX_WAITING_PER_ADDRESS);
        assertThat(statuses).as("the legitimate caller's answers").isNotEmpty().allMatch(s -> s == 200 || s == 429);
        assertThat(latencies.stream().mapToLong(Long::longValue).max().orElseThrow())
                .as("the legitimate caller's worst latency in ms, of %d requests: %s", latencies.size(), latencies)
                .isLessThan(1_000);
        for (int c = 0; c < attackers.size(); c++) {
            RawHttp2.Watch watch = watches.get(c);
            assertThat(streams.get(c)).as("connection %d's streams ended by the server (reset: %s, closed: %s)", c,
                            watch.reset, watch.closedBy)
                    .allMatch(watch::ended);
        }
        assertThat(julLog).as("java.util.logging records at SEVERE or with a stack trace")
                .noneMatch(r -> r.getLevel().intValue() >= java.util.logging.Level.SEVERE.intValue()
                        || r.getThrown() != null);
        assertThat(log).as("the demo's log during the attack").doesNotContain("\tat ").doesNotContain("SEVERE")
                .doesNotContain("ERROR").contains("INFO client-errors - a response was not written");
        List<String> notWritten = log.lines().filter(line -> line.contains("not written")).toList();
        assertThat(notWritten).as("the log's lines about answers not written").allMatch(line -> line.contains(" client-errors - "))
                // sampled: 20 at once, then 20 a second (whatever the failures; the summaries aside)
                .filteredOn(line -> line.contains("a response was not written"))
                .hasSizeLessThanOrEqualTo((int) (20 + 20 * attackSeconds));
    }

    @Test
    void oversizedHeaderBlocks_are431OnTheirStream_andEveryConnectionKeepsServing_regressionForPoisoning()
            throws IOException {
        // over the 8 KB limit; the server advertised less before (4 KB) and then refused everything
        String big = "x".repeat(9_000);
        try (LegitimateCaller caller = LegitimateCaller.start("127.0.0.69", api.getPort())) {
            caller.awaitMore(1);
            oversizedHeaderBlocks(big);
            caller.awaitMore(5);
            assertThat(caller.worstMillis()).as("the other customer's worst latency in ms, asking every 100 ms throughout")
                    .isLessThan(1_000);
            assertThat(caller.statuses()).isNotEmpty().containsOnly(200);
        }
    }

    private static void oversizedHeaderBlocks(String big) throws IOException {
        try (RawHttp2 client = RawHttp2.connect(api, InetAddress.getByName("127.0.0.63"))) {
            for (int i = 0; i < 3; i++) {
                RawHttp2.Response plain = client.get(authority(api), "/api/v1/accounts/ACC-1001", KEY, FREE,
                        "x-big-" + i, big);
                assertThat(plain.status()).as("oversized request %d", i + 1).isEqualTo(431);
                assertThat(plain.headers().get("content-type")).startsWith("application/problem+json");
                // a literal the server must add to its table: refused all the same, the tables stay in step
                RawHttp2.Response indexed = client.getWithIndexedHeader(authority(api), "/api/v1/accounts/ACC-1001",
                        "x-big-" + i, big, KEY, FREE);
                assertThat(indexed.status()).as("oversized indexed request %d", i + 1).isEqualTo(431);
            }
            assertThat(client.get(authority(api), "/api/v1/accounts/ACC-1001", KEY, FREE).status())
                    .as("the same connection, afterwards").isEqualTo(200);
        }
        try (RawHttp2 other = RawHttp2.connect(api, InetAddress.getByName("127.0.0.64"))) {
            assertThat(other.get(authority(api), "/api/v1/accounts/ACC-1001", KEY, FREE).status())
                    .as("another client's connection").isEqualTo(200);
        }
        assertThat(Http.get(api.resolve("/api/v1/accounts/ACC-1001"), KEY, FREE).statusCode())
                .as("an HTTP/1.1 client").isEqualTo(200);
        try (RawHttp2 scraper = RawHttp2.connect(demo.management, InetAddress.getLoopbackAddress())) {
            assertThat(scraper.getWithIndexedHeader(authority(demo.management), "/metrics", "x-big", big).status())
                    .as("the management listener, oversized").isEqualTo(431);
            assertThat(scraper.get(authority(demo.management), "/metrics").status())
                    .as("the management listener, afterwards").isEqualTo(200);
        }
    }

    @Test
    void headerBlockPastWhatTheServerDecodes_closesThatConnectionOnly() throws IOException {
        String huge = "x".repeat(ApiServer.HTTP2_DECODE_BYTES + 1);
        String answer;
        try (RawHttp2 attacker = RawHttp2.connect(api, InetAddress.getByName("127.0.0.65"))) {
            try {
                attacker.getWithIndexedHeader(authority(api), "/api/v1/accounts/ACC-1001", "x-huge", huge, KEY, FREE);
                answer = "answered";
            } catch (IOException e) {
                answer = String.valueOf(e.getMessage());
            }
        }

        assertThat(answer).startsWith("GOAWAY");
        try (RawHttp2 other = RawHttp2.connect(api, InetAddress.getByName("127.0.0.66"))) {
            assertThat(other.get(authority(api), "/api/v1/accounts/ACC-1001", KEY, FREE).status())
                    .as("another client's connection").isEqualTo(200);
        }
    }

    /** Every {@code java.util.logging} record its logger let through, as Jersey's would reach a console. */
    private static final class Recorder extends Handler {
        final List<LogRecord> records = new CopyOnWriteArrayList<>();

        @Override
        public void publish(LogRecord record) {
            records.add(record);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    }

    /** How many of each connection's streams the server has ended. */
    private static List<Long> ended(List<RawHttp2.Watch> watches, List<List<Integer>> streams) {
        List<Long> out = new ArrayList<>();
        for (int c = 0; c < watches.size(); c++) {
            out.add(streams.get(c).stream().filter(watches.get(c)::ended).count());
        }
        return out;
    }

    /** What ended each watched connection, null for one still open. */
    private static List<@Nullable String> closedBy(List<RawHttp2.Watch> watches) {
        List<@Nullable String> out = new ArrayList<>();
        for (RawHttp2.Watch watch : watches) {
            out.add(watch.closedBy);
        }
        return out;
    }

    /** One HTTP/1.1 request from {@code from}: its status line, "closed", or "no answer" within 5 s. */
    private String neighbour(InetAddress from) throws IOException {
        try (java.net.Socket socket = new java.net.Socket()) {
            socket.bind(new java.net.InetSocketAddress(from, 0));
            socket.connect(new java.net.InetSocketAddress(api.getHost(), api.getPort()), 5_000);
            socket.setSoTimeout(5_000);
            socket.getOutputStream().write(("GET /api/v1/accounts/ACC-1001 HTTP/1.1\r\nHost: " + authority(api)
                    + "\r\n" + KEY + ": " + FREE + "\r\nConnection: close\r\n\r\n")
                    .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
            java.io.BufferedReader in = new java.io.BufferedReader(new java.io.InputStreamReader(socket.getInputStream(),
                    java.nio.charset.StandardCharsets.ISO_8859_1));
            String line = in.readLine();
            return line == null ? "closed" : line;
        } catch (java.net.SocketTimeoutException e) {
            return "no answer in 5 s";
        } catch (java.net.SocketException e) {
            return "closed (" + e.getMessage() + ")";
        }
    }
}
