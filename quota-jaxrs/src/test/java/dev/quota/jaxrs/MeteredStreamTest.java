package dev.quota.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Concurrency;
import dev.quota.core.Customer;
import dev.quota.core.FailurePolicy;
import dev.quota.core.Limit;
import dev.quota.core.Plan;
import dev.quota.core.QuotaListener;
import dev.quota.core.Refill;
import dev.quota.core.Rule;
import dev.quota.core.Settlement;
import dev.quota.core.Streams;
import dev.quota.core.spi.Adjustment;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.QuotaStore;
import dev.quota.core.spi.Take;
import dev.quota.redis.RedisStore;
import dev.quota.testkit.RedisExtension;
import dev.quota.testkit.RespClient;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.StreamingOutput;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Responses charged while they stream, over HTTP, on a real Redis, with the default settings: a
 * plan of 500 an hour (batches of 25), a rule whose estimate is 10, a statement of a million rows.
 * The clock is frozen, so nothing refills unless a test moves it. Every row count is exact: what
 * the client received, what the plan was charged, how many store calls it took.
 */
class MeteredStreamTest {

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private static final String KEY = "stream-key-0123456789";
    private static final Customer DANA = Customer.of("dana", "hourly");
    private static final long MILLION = 1_000_000;

    private final AtomicInteger consumes = new AtomicInteger();
    private final AtomicInteger adjusts = new AtomicInteger();
    private final BlockingQueue<Settlement> settled = new LinkedBlockingQueue<>();
    private Fixture fixture;

    @AfterEach
    void close() {
        if (fixture != null) {
            fixture.close();
        }
    }

    private void start(Streams streams) {
        try (RespClient client = RespClient.connect(redis.server().host(), redis.server().port())) {
            client.flushAll(); // every test starts with the plan full
        }
        fixture = Fixture.with(new TestConfig()
                        .plan(Plan.of("hourly", List.of(new Limit("hourly", 500, Refill.interval(500, Duration.ofHours(1)))),
                                FailurePolicy.CLOSED))
                        .rule(Rule.builder("statement").cost(10).concurrency(new Concurrency(1, Duration.ofHours(10)))
                                .build())
                        .rule(Rule.builder("statements-at-once").cost(10).build())
                        .customer(DANA, KEY)
                        .streams(streams))
                .store(clock -> new Counted(RedisStore.builder().uri(redis.uri()).clock(clock).build()))
                .listener(new QuotaListener() {
                    @Override
                    public void onSettle(Settlement settlement) {
                        settled.add(settlement);
                    }
                })
                .application(app -> app.register(Statements.class))
                .start();
    }

    /** The statement in CSV and as server-sent events, and two resources that misbehave. */
    @Path("/api/v1/statements")
    public static final class Statements {

        static final AtomicLong handedOver = new AtomicLong();
        static volatile CountDownLatch clientGone = new CountDownLatch(1);

        @GET
        @Path("csv/{n}")
        @Quota("statement")
        @Produces("text/csv")
        public StreamingOutput csv(@PathParam("n") long n, @Context ContainerRequestContext request) {
            QuotaMeter meter = QuotaFeature.meter(request);
            return out -> {
                out.write("day,balance\r\n".getBytes(StandardCharsets.US_ASCII));
                for (long i = 0; i < n; i++) {
                    out.write(("" + i + ",100.00\r\n").getBytes(StandardCharsets.US_ASCII));
                    if (!meter.add(1)) {
                        break;
                    }
                }
            };
        }

        /** The same CSV under a rule without an in-flight limit: as many at once as the customer asks. */
        @GET
        @Path("at-once/{n}")
        @Quota("statements-at-once")
        @Produces("text/csv")
        public StreamingOutput atOnce(@PathParam("n") long n, @Context ContainerRequestContext request) {
            return csv(n, request);
        }

        @GET
        @Path("events/{n}")
        @Quota("statement")
        @Produces("text/event-stream")
        public StreamingOutput events(@PathParam("n") long n, @Context ContainerRequestContext request) {
            QuotaMeter meter = QuotaFeature.meter(request);
            return out -> {
                for (long i = 0; i < n; i++) {
                    out.write(("event: row\ndata: " + i + "\n\n").getBytes(StandardCharsets.US_ASCII));
                    if (!meter.add(1)) {
                        out.write("event: quota-exhausted\ndata: {\"rows\":".getBytes(StandardCharsets.US_ASCII));
                        out.write((i + 1 + "}\n\n").getBytes(StandardCharsets.US_ASCII));
                        break;
                    }
                }
            };
        }

        /** Counts every row and never looks at what the meter answers: rows of about 100 bytes. */
        @GET
        @Path("heedless/{n}")
        @Quota("statement")
        public StreamingOutput heedless(@PathParam("n") long n, @Context ContainerRequestContext request) {
            QuotaMeter meter = QuotaFeature.meter(request);
            return out -> {
                String padding = "x".repeat(90); // rows of about 100 bytes: the cut comes after the body began
                for (long i = 0; i < n; i++) {
                    out.write(("row " + i + padding + "\n").getBytes(StandardCharsets.US_ASCII));
                    meter.add(1);
                }
            };
        }

        /** Rows of 100 bytes, flushed; after 100 it waits until the client has gone. */
        @GET
        @Path("endless")
        @Quota("statement")
        public StreamingOutput endless(@Context ContainerRequestContext request) {
            QuotaMeter meter = QuotaFeature.meter(request);
            return out -> {
                byte[] row = new byte[100];
                try {
                    for (long i = 0; ; i++) {
                        if (i == 100) {
                            clientGone.await(10, TimeUnit.SECONDS);
                        }
                        out.write(row);
                        out.flush();
                        handedOver.set(i + 1);
                        if (!meter.add(1)) {
                            return;
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            };
        }

        @GET
        @Path("download/{bytes}")
        @Quota("statement")
        @SettledCost(bytesPerToken = 100)
        public StreamingOutput download(@PathParam("bytes") int bytes) {
            return out -> {
                byte[] kilobyte = new byte[1_000];
                for (int i = 0; i < bytes / 1_000; i++) {
                    out.write(kilobyte);
                }
            };
        }
    }

    /** The real Redis store, counting the calls that draw (consumes) and settle (adjusts, without lease returns). */
    private final class Counted implements QuotaStore {
        private final QuotaStore store;

        Counted(QuotaStore store) {
            this.store = store;
        }

        @Override
        public List<ConsumeResult> tryConsume(List<Take> takes) {
            consumes.incrementAndGet();
            return store.tryConsume(takes);
        }

        @Override
        public void addTokens(BucketKey key, BucketSpec spec, long tokens) {
            store.addTokens(key, spec, tokens);
        }

        @Override
        public void releaseLease(BucketKey key, BucketSpec spec, long lease) {
            store.releaseLease(key, spec, lease);
        }

        @Override
        public void adjust(List<Adjustment> adjustments) {
            if (adjustments.stream().noneMatch(Adjustment::releasesLease)) {
                adjusts.incrementAndGet(); // a settle; the lease's return goes after the response, apart
            }
            store.adjust(adjustments);
        }

        @Override
        public ConsumeResult peek(BucketKey key, BucketSpec spec) {
            return store.peek(key, spec);
        }

        @Override
        public void reset(BucketKey key) {
            store.reset(key);
        }

        @Override
        public String describe() {
            return store.describe();
        }

        @Override
        public void close() {
            store.close();
        }
    }

    private long planRemaining() {
        return fixture.service.admin().standing(DANA).get(0).remaining();
    }

    private Settlement nextSettlement() throws InterruptedException {
        Settlement settlement = settled.poll(10, TimeUnit.SECONDS);
        assertThat(settlement).as("a settle told to the listeners").isNotNull();
        return settlement;
    }

    /** The raw response to a GET, read until the server closes or breaks off the body. */
    private String raw(String path) throws IOException {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), fixture.server.port())) {
            socket.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                    + "X-API-Key: " + KEY + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            InputStream in = socket.getInputStream();
            byte[] buffer = new byte[8_192];
            try {
                for (int n; (n = in.read(buffer)) >= 0; ) {
                    body.write(buffer, 0, n);
                }
            } catch (IOException reset) {
                // a body broken off may end in a reset: what arrived before it counts
            }
            return body.toString(StandardCharsets.US_ASCII);
        }
    }

    @Test
    void csvStatementOfAMillionRows_onAPlanWith500Left_sendsExactly500Rows_andEndsCleanly() throws Exception {
        start(Streams.DEFAULT);

        var response = fixture.server.get("/api/v1/statements/csv/" + MILLION, "X-API-Key", KEY);

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body().lines()).hasSize(1 + 500); // the header line and 500 rows: a complete body
        assertThat(nextSettlement()).isEqualTo(new Settlement(Settlement.Outcome.EXACT, 500, 500, 0));
        assertThat(planRemaining()).isZero();
        // 1 decision; 19 batches of 25 (10 + 475 = 485 paid); the 15 left (a refused batch, then
        // those); the refused 501st: 23 consumes for 500 rows, and the settle needed no call
        assertThat(consumes.get()).isEqualTo(1 + 19 + 2 + 1);
        assertThat(adjusts.get()).isZero();
    }

    @Test
    void eventStream_onAPlanWith500Left_sendsExactly500RowEvents_thenSaysWhy() throws Exception {
        start(Streams.DEFAULT);

        var response = fixture.server.get("/api/v1/statements/events/" + MILLION, "X-API-Key", KEY);

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                v -> assertThat(v).startsWith("text/event-stream"));
        assertThat(response.body().split("event: row\n", -1)).hasSize(1 + 500);
        assertThat(response.body()).endsWith("event: quota-exhausted\ndata: {\"rows\":500}\n\n");
        assertThat(planRemaining()).isZero();
    }

    @Test
    void statement_withADebtCapOf50_runs50RowsOnCredit_andLeavesExactlyThatDebt() throws Exception {
        start(new Streams(1_000, 50));

        var response = fixture.server.get("/api/v1/statements/csv/" + MILLION, "X-API-Key", KEY);

        assertThat(response.body().lines()).hasSize(1 + 550);
        assertThat(nextSettlement()).isEqualTo(new Settlement(Settlement.Outcome.CHARGED, 500, 550, 50));
        assertThat(planRemaining()).isZero();
        fixture.clock.advance(Duration.ofHours(1)); // the hour's 500 pay the debt of 50 first
        assertThat(planRemaining()).isEqualTo(450);
    }

    /**
     * Many statements of one customer at once, without an in-flight limit: together they are sent
     * exactly what its plan holds, not that much each, whatever order their draws reach the store
     * in. A stream draws its batches from the plan buckets themselves, never past what they hold,
     * so streams started together share the plan, and what one holds back unused goes back when it
     * ends (docs/configuration.md, "Streams of one customer at once").
     */
    @Test
    void eightStatementsOfOneCustomerAtOnce_areSentExactlyThePlansRowsBetweenThem() throws Exception {
        assertConcurrentStatements(Streams.DEFAULT, 500, 0);
    }

    /**
     * With credit, each stream running at once may run its {@code debtCap} on credit: a stream's
     * credit is charged when it settles, so streams that run out together each see the plan at 0,
     * not the others' debt. Between them, at most {@code debtCap} a stream admitted, at least one
     * stream's.
     */
    @Test
    void eightStatementsOfOneCustomerAtOnce_withADebtCapOf50_runAtMost50OnCreditEach() throws Exception {
        assertConcurrentStatements(new Streams(1_000, 50), 500, 50);
    }

    private void assertConcurrentStatements(Streams streams, long plan, long debtCap) throws Exception {
        start(streams);
        int streamsAtOnce = 8;
        ExecutorService pool = Executors.newFixedThreadPool(streamsAtOnce);
        var allAsked = new CountDownLatch(1);
        List<Future<HttpResponse<String>>> responses = new ArrayList<>();
        try {
            for (int i = 0; i < streamsAtOnce; i++) {
                responses.add(pool.submit(() -> {
                    allAsked.await();
                    return fixture.server.get("/api/v1/statements/at-once/" + MILLION, "X-API-Key", KEY);
                }));
            }
            allAsked.countDown();
            long rows = 0;
            int admitted = 0;
            for (var response : responses) {
                var answer = response.get(60, TimeUnit.SECONDS);
                if (answer.statusCode() == 200) {
                    rows += answer.body().lines().count() - 1; // less the header line
                    admitted++;
                } else {
                    assertThat(answer.statusCode()).as("a statement refused on arrival").isEqualTo(429);
                }
            }
            long charged = 0;
            for (int i = 0; i < admitted; i++) {
                charged += nextSettlement().actual();
            }
            System.out.printf("%d statements at once, debtCap %d: %d admitted, %d rows between them%n",
                    streamsAtOnce, debtCap, admitted, rows);
            assertThat(rows).as("rows sent to %d streams at once, %d of them admitted", streamsAtOnce, admitted)
                    .isBetween(plan + debtCap, plan + admitted * debtCap).isEqualTo(charged);
            assertThat(planRemaining()).isZero();
            fixture.clock.advance(Duration.ofHours(1)); // the hour's 500 pay the streams' debt first
            assertThat(planRemaining()).as("the hour's refill less the debt").isEqualTo(plan - (rows - plan));
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void shortStatement_drawsOneBatch_andGivesBackWhatItDidNotUse() throws Exception {
        start(Streams.DEFAULT);

        var response = fixture.server.get("/api/v1/statements/csv/12", "X-API-Key", KEY);

        assertThat(response.body().lines()).hasSize(1 + 12);
        assertThat(nextSettlement()).isEqualTo(new Settlement(Settlement.Outcome.GIVEN_BACK, 35, 12, -23));
        assertThat(planRemaining()).isEqualTo(500 - 12);
        assertThat(consumes.get()).isEqualTo(1 + 1);
        assertThat(adjusts.get()).isEqualTo(1);
    }

    @Test
    void resourceThatIgnoresTheMeter_isCutOffAtItsNextWrite_overrunningByTheOneRowItCounted() throws Exception {
        start(Streams.DEFAULT);

        String response = raw("/api/v1/statements/heedless/" + MILLION);

        // 500 rows paid, the 501st written before the add that counted it: then every write fails
        assertThat(response.split("row ", -1)).hasSize(1 + 501);
        assertThat(response).startsWith("HTTP/1.1 200 ");
        assertThat(nextSettlement()).isEqualTo(new Settlement(Settlement.Outcome.CHARGED, 500, 501, 1));
        fixture.clock.advance(Duration.ofHours(1));
        assertThat(planRemaining()).isEqualTo(499);
    }

    @Test
    void clientResetMidStream_isChargedExactlyTheRowsHandedOver_andTheRestOfItsBatchGoesBack() throws Exception {
        start(Streams.DEFAULT);
        Statements.clientGone = new CountDownLatch(1);
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), fixture.server.port())) {
            socket.getOutputStream().write(("GET /api/v1/statements/endless HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: "
                    + KEY + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            InputStream in = socket.getInputStream();
            byte[] some = new byte[10_000];
            int read = 0;
            while (read < 9_000) { // the headers and the first rows
                int n = in.read(some, 0, some.length);
                assertThat(n).isPositive();
                read += n;
            }
            socket.setSoLinger(true, 0); // a reset, not a polite close
        }
        Statements.clientGone.countDown();

        Settlement settlement = nextSettlement();
        assertThat(settlement.actual()).isEqualTo(Statements.handedOver.get()).isBetween(1L, 499L);
        assertThat(planRemaining()).isEqualTo(500 - settlement.actual());
    }

    @Test
    void inFlightLease_isGivenBack_whenAStreamIsCutOff_andWhenItsClientResets() throws Exception {
        start(Streams.DEFAULT);

        fixture.server.get("/api/v1/statements/csv/" + MILLION, "X-API-Key", KEY); // cut off at 500
        fixture.clock.advance(Duration.ofHours(1)); // the plan full again; the lease (10 h) would not be
        var afterCutOff = fixture.server.get("/api/v1/statements/csv/3", "X-API-Key", KEY);

        assertThat(afterCutOff.statusCode()).isEqualTo(200);
        Statements.clientGone = new CountDownLatch(1);
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), fixture.server.port())) {
            socket.getOutputStream().write(("GET /api/v1/statements/endless HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: "
                    + KEY + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            assertThat(socket.getInputStream().read(new byte[5_000])).isPositive();
            socket.setSoLinger(true, 0);
        }
        Statements.clientGone.countDown();
        nextSettlement();
        nextSettlement();
        nextSettlement(); // the endless one: the lease is given back before it is settled
        var afterReset = fixture.server.get("/api/v1/statements/csv/3", "X-API-Key", KEY);

        assertThat(afterReset.statusCode()).isEqualTo(200);
    }

    @Test
    void download_billedPer100Bytes_onAPlanWith500Left_sendsExactly50000Bytes_thenBreaksOff() throws Exception {
        start(Streams.DEFAULT);

        String response = raw("/api/v1/statements/download/" + MILLION);

        String body = response.substring(response.indexOf("\r\n\r\n") + 4);
        assertThat(dechunked(body)).isEqualTo(50_000);
        assertThat(nextSettlement()).isEqualTo(new Settlement(Settlement.Outcome.EXACT, 500, 500, 0));
        assertThat(planRemaining()).isZero();
    }

    @Test
    void download_cutOffBeforeTheResponseIsCommitted_is200WithThePaidBytes_neverA500() throws Exception {
        start(Streams.DEFAULT);
        fixture.server.get("/api/v1/statements/csv/450", "X-API-Key", KEY); // 450 of the 500: 50 left
        assertThat(nextSettlement().actual()).isEqualTo(450);

        String response = raw("/api/v1/statements/download/" + MILLION);

        // 50 tokens at 100 bytes: 5,000 bytes, less than the runtime buffers before it commits
        assertThat(response).startsWith("HTTP/1.1 200 ");
        String body = response.substring(response.indexOf("\r\n\r\n") + 4);
        assertThat(response.contains("Transfer-Encoding: chunked") ? dechunked(body) : body.length()).isEqualTo(5_000);
        assertThat(planRemaining()).isZero();
    }

    /** The data bytes of a chunked body, up to where it broke off. */
    private static int dechunked(String body) {
        int bytes = 0;
        int at = 0;
        while (at < body.length()) {
            int lineEnd = body.indexOf("\r\n", at);
            if (lineEnd < 0) {
                break;
            }
            int size = Integer.parseInt(body.substring(at, lineEnd).trim(), 16);
            if (size == 0) {
                break;
            }
            int available = Math.min(size, body.length() - lineEnd - 2);
            bytes += available;
            at = lineEnd + 2 + size + 2;
        }
        return bytes;
    }
}
