package dev.quota.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Concurrency;
import dev.quota.core.Identity;
import dev.quota.core.Rule;
import dev.quota.core.spi.QuotaStore;
import dev.quota.core.store.ForwardingStore;
import dev.quota.redis.RedisStore;
import dev.quota.testkit.Await;
import dev.quota.testkit.RawHttp;
import dev.quota.testkit.RedisExtension;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Requests whose bodies have not started, over HTTP against a real server (Grizzly) and a real Redis: each
 * takes its plan token and its in-flight lease when it arrives, in one store call, so pending
 * bodies count against {@code concurrency}. (The bound on pending bodies is tested over Jetty, in
 * quota-demo's {@code PendingBodiesTest}, and on its own in {@link PendingBodiesTest}.)
 */
class PendingBodiesHttpTest {

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private static final String PAYOUT = "{\"currency\":\"EUR\",\"amountMinor\":100}";

    private final AtomicInteger consumeCalls = new AtomicInteger();
    private final List<Socket> sockets = new ArrayList<>();
    private Fixture fixture;

    /** Payouts bound to rule {@code wires}: 2 at once per customer (Grizzly's pool is a few threads per core). */
    @Path("/api/v1/wires")
    @Quota("wires")
    public static final class Wires {

        @POST
        @AmountLimit("transfer-amount")
        @Consumes(MediaType.APPLICATION_JSON)
        public Response wire(TestResources.Payouts.Payout payout) {
            return Response.status(201).entity("wired").build();
        }
    }

    private void start(int pendingBodies) {
        fixture = Fixture.with(TestConfig.standard().amounts(AmountLimitTest.TRANSFER_AMOUNT)
                        .rule(Rule.builder("wires").concurrency(Concurrency.of(2)).build())
                        .identity(Identity.builder().pendingBodies(pendingBodies).build()))
                .store(clock -> counting(RedisStore.builder().uri(redis.uri()).clock(clock).build()))
                .application(app -> app.register(Wires.class)).start();
    }

    private QuotaStore counting(QuotaStore store) {
        return new ForwardingStore(store) {
            @Override
            protected void before(String operation) {
                if (operation.equals("consume")) {
                    consumeCalls.incrementAndGet();
                }
            }
        };
    }

    @AfterEach
    void stop() {
        for (Socket socket : sockets) {
            try (socket) {
                // the body at last (not JSON): the server ends the request now, not at its idle timeout
                socket.getOutputStream().write(" ".repeat(PAYOUT.length()).getBytes(StandardCharsets.ISO_8859_1));
            } catch (IOException e) {
                // answered and closed already
            }
        }
        if (fixture != null) {
            fixture.close();
        }
    }

    /** The headers of a payout from {@code peer}, without a byte of its body. */
    private Socket headersOnly(String peer, String... headers) throws IOException {
        Socket socket = new Socket();
        sockets.add(socket);
        socket.setSoTimeout(20_000);
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), fixture.server.port()), 5_000);
        StringBuilder head = new StringBuilder("POST /api/v1/wires HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Content-Type: application/json\r\nContent-Length: " + PAYOUT.length() + "\r\n"
                + Fixture.PEER_HEADER + ": " + peer + "\r\n");
        for (int i = 0; i + 1 < headers.length; i += 2) {
            head.append(headers[i]).append(": ").append(headers[i + 1]).append("\r\n");
        }
        socket.getOutputStream().write((head + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
        socket.getOutputStream().flush();
        return socket;
    }

    @Test
    void twoPendingBodies_holdTheirLeases_soAThirdCompleteRequestIs429_eachArrivalOneStoreCall() throws IOException {
        start(Identity.DEFAULT_PENDING_BODIES);
        for (int i = 0; i < 2; i++) {
            headersOnly("127.0.0.1", "X-API-Key", TestConfig.ACME_KEY);
        }
        Await.until(Duration.ofSeconds(10), () -> consumeCalls.get() == 2, () -> "two arrivals decided");

        RawHttp.Answer third = RawHttp.postJson(fixture.server.port(), "/api/v1/wires", PAYOUT, "X-API-Key",
                TestConfig.ACME_KEY);

        assertThat(third.status()).isEqualTo(429);
        assertThat(third.body()).contains("\"type\":\"urn:quota:problem:too-many-in-flight\"")
                .contains("\"limit\":\"wires-in-flight\"");
        assertThat(consumeCalls.get()).as("one store call per arrival, none more for the refused third").isEqualTo(3);
    }
}
