package dev.quota.bench.net;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.testkit.RedisServer;
import dev.quota.testkit.RespClient;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The delay proxy against a real redis-server: a round trip through it takes at least the
 * configured delay (an upper bound only loosely: the machine is shared), and it keeps TCP's
 * guarantees for pipelined commands, large values and many connections.
 */
class DelayProxyTest {

    private static final Duration RTT = Duration.ofNanos(500_000);
    private static final int PINGS = 300;

    private static RedisServer redis;

    @BeforeAll
    static void start() {
        redis = RedisServer.start();
    }

    @AfterAll
    static void stop() {
        redis.close();
    }

    @Test
    void ping_throughTheProxy_takesAtLeastTheConfiguredRoundTripLonger() {
        long[] direct;
        long[] proxied;
        try (DelayProxy proxy = DelayProxy.start(redis.host(), redis.port(), RTT);
             RespClient plain = RespClient.connect(redis.host(), redis.port());
             RespClient delayed = RespClient.connect("127.0.0.1", proxy.port())) {
            pings(plain, 50); // warm-up of both paths
            pings(delayed, 50);
            direct = pings(plain, PINGS);
            proxied = pings(delayed, PINGS);
        }
        long rtt = RTT.toNanos();
        long added = median(proxied) - median(direct);

        assertThat(proxied[0]).as("fastest PING through the proxy, ns").isGreaterThanOrEqualTo(rtt);
        assertThat(added).as("median added round trip, ns").isGreaterThanOrEqualTo(rtt)
                .isLessThan(rtt + Duration.ofMillis(20).toNanos());
    }

    @Test
    void zeroDelay_passesEveryByteStraightThrough() {
        try (DelayProxy proxy = DelayProxy.start(redis.host(), redis.port(), Duration.ZERO);
             RespClient client = RespClient.connect("127.0.0.1", proxy.port())) {
            client.command("SET", "proxy:zero", "v");

            assertThat(client.command("GET", "proxy:zero")).isEqualTo("v");
        }
    }

    @Test
    void pipelinedCommands_comeBackInOrder() throws IOException {
        int count = 5_000;
        StringBuilder commands = new StringBuilder();
        for (int i = 0; i < count; i++) {
            commands.append("*2\r\n$4\r\nINCR\r\n$14\r\nproxy:pipeline\r\n");
        }
        List<String> replies = new ArrayList<>();
        try (DelayProxy proxy = DelayProxy.start(redis.host(), redis.port(), RTT);
             Socket socket = new Socket("127.0.0.1", proxy.port())) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            // written in pieces that split commands, so chunks never line up with commands
            byte[] bytes = commands.toString().getBytes(StandardCharsets.US_ASCII);
            for (int from = 0; from < bytes.length; from += 777) {
                out.write(bytes, from, Math.min(777, bytes.length - from));
                out.flush();
            }
            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
                    StandardCharsets.US_ASCII));
            for (int i = 0; i < count; i++) {
                replies.add(in.readLine());
            }
        }

        for (int i = 0; i < count; i++) {
            assertThat(replies.get(i)).isEqualTo(":" + (i + 1));
        }
    }

    @Test
    void largeValue_arrivesIntact_bothWays() {
        char[] chars = new char[8 * 1024 * 1024];
        for (int i = 0; i < chars.length; i++) {
            chars[i] = (char) ('a' + (i * 31 + i / 7) % 26);
        }
        String value = new String(chars);
        try (DelayProxy proxy = DelayProxy.start(redis.host(), redis.port(), RTT);
             RespClient client = RespClient.connect("127.0.0.1", proxy.port())) {
            client.command("SET", "proxy:large", value);

            assertThat(client.command("GET", "proxy:large")).isEqualTo(value);
        }
    }

    @Test
    void manyConnections_eachGetsItsOwnUpstream_andClosingOneClosesIt() {
        int count = 200;
        try (DelayProxy proxy = DelayProxy.start(redis.host(), redis.port(), RTT);
             RespClient admin = RespClient.connect(redis.host(), redis.port())) {
            long before = connectedClients(admin);
            List<RespClient> clients = new ArrayList<>();
            try {
                for (int i = 0; i < count; i++) {
                    RespClient c = RespClient.connect("127.0.0.1", proxy.port());
                    clients.add(c);
                    c.command("SET", "proxy:many:" + i, Integer.toString(i));
                }
                for (int i = 0; i < count; i++) {
                    assertThat(clients.get(i).command("GET", "proxy:many:" + i)).isEqualTo(Integer.toString(i));
                }
                assertThat(proxy.connections()).isEqualTo(count);
                assertThat(connectedClients(admin)).isEqualTo(before + count);
            } finally {
                clients.forEach(RespClient::close);
            }

            // the close travels through the proxy with the delay, then Redis closes its side
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while ((proxy.connections() > 0 || connectedClients(admin) > before) && System.nanoTime() < deadline) {
                LockSupport.parkNanos(1_000_000);
            }
            assertThat(proxy.connections()).isZero();
            assertThat(connectedClients(admin)).isEqualTo(before);
        }
    }

    private static long[] pings(RespClient client, int count) {
        long[] took = new long[count];
        for (int i = 0; i < count; i++) {
            long start = System.nanoTime();
            assertThat(client.command("PING")).isEqualTo("PONG");
            took[i] = System.nanoTime() - start;
        }
        Arrays.sort(took);
        return took;
    }

    private static long median(long[] sorted) {
        return sorted[sorted.length / 2];
    }

    private static long connectedClients(RespClient admin) {
        for (String line : admin.info("clients").split("\r\n")) {
            if (line.startsWith("connected_clients:")) {
                return Long.parseLong(line.substring("connected_clients:".length()));
            }
        }
        throw new IllegalStateException("INFO clients has no connected_clients");
    }
}
