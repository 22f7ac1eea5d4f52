package dev.quota.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Customer;
import dev.quota.core.FailurePolicy;
import dev.quota.core.Limit;
import dev.quota.core.Plan;
import dev.quota.core.QuotaListener;
import dev.quota.core.Refill;
import dev.quota.core.Rule;
import dev.quota.core.Settlement;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.StreamingOutput;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A rule's cost as an estimate, settled over HTTP once the response has been written: rows a
 * streamed export reports, a {@code Quota-Cost} header, the body's size; a failed response refunded
 * instead; a client gone mid-stream charged the rows it was handed. Every figure is the plan's
 * remaining tokens (1,000, no refill on the frozen clock), read once the settle was told to the
 * service's listeners.
 */
class CostSettlementTest {

    private static final String KEY = "metered-key-0123456789";
    private static final Customer CAROL = Customer.of("carol", "metered");

    private final BlockingQueue<Settlement> settled = new LinkedBlockingQueue<>();
    private final Fixture fixture = Fixture.with(new TestConfig()
                    .plan(Plan.of("metered", List.of(new Limit("burst", 1_000, Refill.greedy(1_000, Duration.ofHours(1)))),
                            FailurePolicy.CLOSED))
                    .rule(Rule.builder("report").cost(10).build())
                    .customer(CAROL, KEY))
            .listener(new QuotaListener() {
                @Override
                public void onSettle(Settlement settlement) {
                    settled.add(settlement);
                }
            })
            .application(app -> app.register(Reports.class))
            .start();

    @AfterEach
    void close() {
        fixture.close();
    }

    /** Rows, a header, bytes: each costs what the response says it cost, against the rule's estimate of 10. */
    @Path("/api/v1/reports")
    public static final class Reports {

        static final AtomicLong handedOver = new AtomicLong();
        static volatile CountDownLatch clientGone = new CountDownLatch(1);

        @GET
        @Path("rows/{n}")
        @Quota("report")
        public StreamingOutput rows(@PathParam("n") int n, @Context ContainerRequestContext request) {
            QuotaMeter meter = QuotaFeature.meter(request);
            return out -> {
                for (int i = 0; i < n; i++) {
                    out.write(("row " + i + "\n").getBytes(StandardCharsets.US_ASCII));
                    meter.add(1);
                }
            };
        }

        @GET
        @Path("failing/{n}")
        @Quota("report")
        public Response failing(@PathParam("n") int n, @Context ContainerRequestContext request) {
            QuotaFeature.meter(request).actual(n);
            return Response.status(502).entity("upstream failed after " + n + " rows").build();
        }

        @GET
        @Path("header/{n}")
        @Quota("report")
        @SettledCost
        public Response header(@PathParam("n") long n) {
            return Response.ok("done").header(QuotaMeter.HEADER, n).build();
        }

        @GET
        @Path("unannotated-header/{n}")
        @Quota("report")
        public Response unannotatedHeader(@PathParam("n") long n) {
            return Response.ok("done").header(QuotaMeter.HEADER, n).build();
        }

        @GET
        @Path("download/{bytes}")
        @Quota("report")
        @SettledCost(bytesPerToken = 1_000)
        public StreamingOutput download(@PathParam("bytes") int bytes) {
            return out -> out.write(new byte[bytes]);
        }

        /**
         * Rows of 1,000 bytes, flushed one by one; after 10 (past Jersey's 8 KB buffer, so the client
         * has read them) it waits until the client has gone, then writes until a write fails.
         */
        @GET
        @Path("endless")
        @Quota("report")
        public StreamingOutput endless(@Context ContainerRequestContext request) {
            QuotaMeter meter = QuotaFeature.meter(request);
            return out -> {
                byte[] row = new byte[1_000];
                try {
                    for (long i = 0; ; i++) {
                        if (i == 10) {
                            clientGone.await(10, TimeUnit.SECONDS);
                        }
                        out.write(row);
                        out.flush();
                        meter.add(1);
                        handedOver.set(meter.cost());
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            };
        }
    }

    private long planRemaining() {
        return fixture.service.admin().standing(CAROL).get(0).remaining();
    }

    private Settlement nextSettlement() throws InterruptedException {
        Settlement settlement = settled.poll(10, TimeUnit.SECONDS);
        assertThat(settlement).as("a settle told to the listeners").isNotNull();
        return settlement;
    }

    @Test
    void export_of37Rows_withEstimate10_costsExactly37() throws Exception {
        var response = fixture.server.get("/api/v1/reports/rows/37", "X-API-Key", KEY);

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body().lines()).hasSize(37);
        assertThat(response.headers().firstValue("RateLimit")).hasValueSatisfying(
                v -> assertThat(v).contains("r=990")); // the estimate, charged when it came in
        // while it streamed it paid the estimate and one batch of 50 (a twentieth of 1,000): 13 go back
        assertThat(nextSettlement()).isEqualTo(new Settlement(Settlement.Outcome.GIVEN_BACK, 60, 37, -23));
        assertThat(planRemaining()).isEqualTo(1_000 - 37);
    }

    @Test
    void export_ofFewerRowsThanTheEstimate_givesTheRestBack() throws Exception {
        fixture.server.get("/api/v1/reports/rows/4", "X-API-Key", KEY);

        assertThat(nextSettlement()).isEqualTo(new Settlement(Settlement.Outcome.GIVEN_BACK, 10, 4, -6));
        assertThat(planRemaining()).isEqualTo(1_000 - 4);
    }

    @Test
    void failedExport_isRefundedNotSettled_itsEstimateStays() throws Exception {
        var response = fixture.server.get("/api/v1/reports/failing/37", "X-API-Key", KEY);
        fixture.server.get("/api/v1/reports/rows/1", "X-API-Key", KEY); // a settle to wait for

        assertThat(response.statusCode()).isEqualTo(502);
        assertThat(nextSettlement().actual()).isEqualTo(1); // the failed one was never settled
        assertThat(planRemaining()).isEqualTo(1_000 - 10 - 1);
    }

    @Test
    void quotaCostHeader_ofASettledCostMethod_isTheActualCost() throws Exception {
        fixture.server.get("/api/v1/reports/header/250", "X-API-Key", KEY);

        assertThat(nextSettlement()).isEqualTo(new Settlement(Settlement.Outcome.CHARGED, 10, 250, 240));
        assertThat(planRemaining()).isEqualTo(1_000 - 250);
    }

    @Test
    void quotaCostHeader_ofAMethodWithoutSettledCost_isIgnored_theEstimateStands() throws Exception {
        fixture.server.get("/api/v1/reports/unannotated-header/250", "X-API-Key", KEY);
        fixture.server.get("/api/v1/reports/rows/1", "X-API-Key", KEY);

        assertThat(nextSettlement().actual()).isEqualTo(1);
        assertThat(planRemaining()).isEqualTo(1_000 - 10 - 1);
    }

    @Test
    void download_billedPerThousandBytes_costsTheThousandsBegun() throws Exception {
        fixture.server.get("/api/v1/reports/download/5500", "X-API-Key", KEY);

        assertThat(nextSettlement()).isEqualTo(new Settlement(Settlement.Outcome.GIVEN_BACK, 10, 6, -4));
        assertThat(planRemaining()).isEqualTo(1_000 - 6);
    }

    @Test
    void clientGoneMidStream_isChargedTheRowsHandedToTheConnection() throws Exception {
        Reports.clientGone = new CountDownLatch(1);
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), fixture.server.port())) {
            socket.getOutputStream().write(("GET /api/v1/reports/endless HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: "
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
        Reports.clientGone.countDown();

        Settlement settlement = nextSettlement();
        assertThat(settlement.actual()).isEqualTo(Reports.handedOver.get()).isGreaterThanOrEqualTo(10);
        assertThat(planRemaining()).isEqualTo(1_000 - settlement.actual());
    }
}
