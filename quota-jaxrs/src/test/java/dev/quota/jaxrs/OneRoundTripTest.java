package dev.quota.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Concurrency;
import dev.quota.core.QuotaDecision;
import dev.quota.core.QuotaListener;
import dev.quota.core.QuotaService;
import dev.quota.core.Rule;
import dev.quota.core.spi.Adjustment;
import dev.quota.core.spi.QuotaStore;
import dev.quota.core.store.ForwardingStore;
import dev.quota.redis.RedisStore;
import dev.quota.testkit.Await;
import dev.quota.testkit.MutableClock;
import dev.quota.testkit.RawHttp;
import dev.quota.testkit.RedisExtension;
import dev.quota.testkit.RespClient;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.glassfish.jersey.server.ResourceConfig;
import org.glassfish.jersey.server.ServerProperties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Store calls per transfer, counted on a real Redis behind Jersey on Grizzly and on Jetty 12 (the
 * demo's server), with the default settings: a transfer whose small JSON body is sent with its
 * headers is decided in exactly one consume call (plan, rule, amount, in-flight lease together);
 * one whose body comes later costs two (the plan on arrival, the rest when read); leases come back
 * after the response, off its thread, several in one {@code adjust} call.
 */
class OneRoundTripTest {

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private static final String PAYOUT = "{\"currency\":\"EUR\",\"amountMinor\":100}";
    private static final String[] KEYS = {"k0-0123456789abcdef", "k1-0123456789abcdef", "k2-0123456789abcdef",
        "k3-0123456789abcdef"};

    private final AtomicInteger consumes = new AtomicInteger();
    private final AtomicInteger releaseLeases = new AtomicInteger();
    private final List<List<Adjustment>> adjusts = new CopyOnWriteArrayList<>();
    private final List<QuotaDecision> released = new CopyOnWriteArrayList<>();
    /** Counted down by the test to let a held lease return reach Redis. */
    private volatile CountDownLatch adjustGate = new CountDownLatch(0);
    private QuotaService service;
    private Containers.Running server;

    /** Payouts bound to rule {@code wires}: 2 in flight per customer, amounts per day. */
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

    private void start(Containers container) {
        try (RespClient client = RespClient.connect(redis.server().host(), redis.server().port())) {
            client.flushAll();
        }
        TestConfig config = TestConfig.standard().amounts(AmountLimitTest.TRANSFER_AMOUNT)
                .rule(Rule.builder("wires").concurrency(Concurrency.of(2)).build());
        for (int i = 0; i < KEYS.length; i++) {
            config.customer("c" + i, "free", KEYS[i]);
        }
        MutableClock clock = MutableClock.at(TestConfig.NOON);
        service = QuotaService.builder().store(counting(RedisStore.builder().uri(redis.uri()).clock(clock).build()))
                .config(config.build()).clock(clock)
                .listener(new QuotaListener() {
                    @Override
                    public void onRelease(QuotaDecision decision) {
                        released.add(decision);
                    }
                }).build();
        ResourceConfig app = new ResourceConfig(Wires.class)
                .register(QuotaFeature.builder(service).clientAddress(Fixture.PEER).build())
                .property(ServerProperties.WADL_FEATURE_DISABLE, true);
        server = container.start(app);
    }

    private QuotaStore counting(QuotaStore store) {
        return new ForwardingStore(store) {
            @Override
            protected void before(String operation) {
                if (operation.equals("consume")) {
                    consumes.incrementAndGet();
                } else if (operation.equals("release")) {
                    releaseLeases.incrementAndGet();
                }
            }

            @Override
            public void adjust(List<Adjustment> adjustments) {
                adjusts.add(List.copyOf(adjustments));
                try {
                    assertThat(adjustGate.await(30, TimeUnit.SECONDS)).isTrue();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                super.adjust(adjustments);
            }
        };
    }

    @AfterEach
    void stop() {
        adjustGate.countDown();
        if (server != null) {
            server.close();
        }
        if (service != null) {
            service.close();
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"GRIZZLY", "JETTY"})
    void transferWithItsSmallBodySentWithItsHeaders_costsExactlyOneConsumeCall(Containers container) {
        start(container);

        for (int i = 1; i <= 5; i++) {
            int before = consumes.get();
            assertThat(whole(KEYS[0])).isEqualTo(201);
            assertThat(consumes.get() - before).as("transfer %d: plan, rule, amount, lease in one call", i)
                    .isEqualTo(1);
            int answered = i;
            Await.until(Duration.ofSeconds(10), () -> released.size() == answered, () -> "lease " + answered + " back");
        }
        assertThat(releaseLeases.get()).as("no lease given back on its own").isZero();
        assertThat(adjusts).hasSize(5).allMatch(call -> call.size() == 1 && call.get(0).releasesLease());
    }

    @ParameterizedTest
    @EnumSource(names = {"GRIZZLY", "JETTY"})
    void transferWhoseBodyComesLater_costsTwoConsumeCalls_theFirstOnArrival(Containers container) {
        start(container);
        byte[] body = PAYOUT.getBytes(StandardCharsets.UTF_8);

        try (RawHttp.Held held = RawHttp.hold("127.0.0.1", server.port(), "POST", "/api/v1/wires",
                new byte[] {body[0]}, Arrays.copyOfRange(body, 1, body.length),
                "Content-Type", "application/json", "X-API-Key", KEYS[0])) {
            Await.until(Duration.ofSeconds(10), () -> consumes.get() == 1, () -> "the plan charged on arrival");
            assertThat(held.finish().status()).isEqualTo(201);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }

        assertThat(consumes.get()).as("on arrival, then the rule and amount once read").isEqualTo(2);
        Await.until(Duration.ofSeconds(10), () -> released.size() == 1, () -> "the lease back");
        assertThat(adjusts).hasSize(1);
    }

    @ParameterizedTest
    @EnumSource(names = {"GRIZZLY", "JETTY"})
    void leaseReturn_doesNotHoldUpTheResponse_andReturnsThatEndMeanwhileGoInOneCall(Containers container) {
        start(container);
        adjustGate = new CountDownLatch(1);

        // the first return is held at the store; three more transfers, each another customer's, end meanwhile
        for (String key : KEYS) {
            assertThat(whole(key)).as("answered while a lease return waits for Redis").isEqualTo(201);
        }
        assertThat(released).as("none back yet").isEmpty();
        adjustGate.countDown();

        Await.until(Duration.ofSeconds(10), () -> released.size() == KEYS.length, () -> "every lease back");
        assertThat(adjusts).extracting(List::size).as("the first alone, then the three together").containsExactly(1, 3);
        assertThat(consumes.get()).isEqualTo(KEYS.length);
        assertThat(releaseLeases.get()).isZero();
    }

    /** A payout whose head and body go out in one write, as a client sends a small JSON request. */
    private int whole(String key) {
        byte[] body = PAYOUT.getBytes(StandardCharsets.UTF_8);
        String head = "POST /api/v1/wires HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                + "Content-Type: application/json\r\nContent-Length: " + body.length + "\r\nX-API-Key: " + key + "\r\n\r\n";
        try (Socket socket = new Socket()) {
            socket.setSoTimeout(30_000);
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.port()), 5_000);
            ByteArrayOutputStream request = new ByteArrayOutputStream();
            request.write(head.getBytes(StandardCharsets.ISO_8859_1));
            request.write(body);
            OutputStream out = socket.getOutputStream();
            out.write(request.toByteArray());
            out.flush();
            InputStream in = socket.getInputStream();
            String answer = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
            return Integer.parseInt(answer.substring(9, 12));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
