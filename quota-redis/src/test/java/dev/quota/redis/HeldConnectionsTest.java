package dev.quota.redis;

import static dev.quota.redis.HeldReplies.awaitUntil;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Limit;
import dev.quota.core.Refill;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import dev.quota.redis.internal.transport.HeldConnections;
import dev.quota.redis.internal.transport.RedissonLink;
import dev.quota.redis.internal.transport.RespConnection;
import dev.quota.testkit.MutableClock;
import dev.quota.testkit.RedisExtension;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A store's compare-and-swap scripts go on the one connection of its own it holds to its master
 * ({@link RespConnection}), in the order they were sent, not on whichever pooled connection is free;
 * the client's pool stays whole for the store's other commands.
 */
class HeldConnectionsTest {

    private static final BucketSpec SPEC = BucketSpec.of(
            List.of(new Limit("burst", 10, Refill.greedy(1, Duration.ofHours(1)))), 1);

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private final MutableClock clock = MutableClock.at("2026-12-01T10:00:00Z");

    @Test
    void scriptsAfterTheFirst_goOnOneConnection_inTheOrderSent() throws IOException {
        HeldConnections[] held = new HeldConnections[1];
        RedisStoreBuilder builder = RedisStore.builder().uri(redis.uri()).clock(clock);
        builder.link = link -> {
            held[0] = ((RedissonLink) link).held();
            return link;
        };
        try (RedisStore store = builder.build()) {
            for (int i = 0; i < 5; i++) {
                store.tryConsume(new BucketKey("held:first:" + i), SPEC, 1); // the first makes the connection
            }
            // until it is made and hand-shaken the scripts go through Redisson's pool, as they should
            awaitUntil(() -> held[0].connection("held:0") != null);
            List<Command> scripts;
            try (Monitor monitor = new Monitor(redis.server().host(), redis.server().port())) {
                for (int i = 0; i < 20; i++) {
                    assertThat(store.tryConsume(new BucketKey("held:" + i), SPEC, 1).remaining()).containsExactly(9);
                }
                scripts = monitor.commands("EVALSHA", 20);
            }

            assertThat(scripts).extracting(Command::client).containsOnly(scripts.get(0).client());
            assertThat(scripts).extracting(Command::firstKey)
                    .containsExactlyElementsOf(IntStream.range(0, 20).mapToObj(i -> "held:" + i).toList());
        }
    }

    @Test
    void aPoolOfOneConnection_isLeftWhole_soTheStoresOtherCommandsStillGetIt() {
        try (RedisStore store = RedisStore.builder().uri(redis.uri()).clock(clock).connectionPoolSize(1).build()) {
            for (int i = 0; i < 5; i++) {
                assertThat(store.tryConsume(new BucketKey("single:" + i), SPEC, 1).remaining()).containsExactly(9);
            }

            store.ping(); // through Redisson's executor, which needs the pool's one connection
            store.reset(new BucketKey("single:0"));

            assertThat(store.tryConsume(new BucketKey("single:0"), SPEC, 1).remaining()).containsExactly(9);
        }
    }

    @Test
    void withoutOwnConnections_scriptsGoOnTheClientsPool_theConnectionItsOtherCommandsUse() throws IOException {
        try (RedisStore store = RedisStore.builder().uri(redis.uri()).clock(clock).connectionPoolSize(1)
                .ownConnections(false).build()) {
            for (int i = 0; i < 5; i++) {
                store.tryConsume(new BucketKey("pooled:first:" + i), SPEC, 1);
            }
            List<Command> commands;
            try (Monitor monitor = new Monitor(redis.server().host(), redis.server().port())) {
                for (int i = 0; i < 10; i++) {
                    assertThat(store.tryConsume(new BucketKey("pooled:" + i), SPEC, 1).remaining()).containsExactly(9);
                }
                store.ping(); // DBSIZE, through Redisson's executor
                commands = monitor.commands(Set.of("EVALSHA", "DBSIZE"), 11);
            }

            assertThat(commands).filteredOn(c -> c.name().equalsIgnoreCase("DBSIZE")).hasSize(1);
            assertThat(commands).extracting(Command::client).containsOnly(commands.get(0).client());
        }
    }

    @Test
    void withOwnConnections_scriptsGoOnAConnectionBesideThePool() throws IOException {
        try (RedisStore store = RedisStore.builder().uri(redis.uri()).clock(clock).connectionPoolSize(1).build()) {
            for (int i = 0; i < 5; i++) {
                store.tryConsume(new BucketKey("own:first:" + i), SPEC, 1); // the first takes the connection
            }
            List<Command> commands;
            try (Monitor monitor = new Monitor(redis.server().host(), redis.server().port())) {
                for (int i = 0; i < 10; i++) {
                    assertThat(store.tryConsume(new BucketKey("own:" + i), SPEC, 1).remaining()).containsExactly(9);
                }
                store.ping();
                commands = monitor.commands(Set.of("EVALSHA", "DBSIZE"), 11);
            }

            String pool = commands.stream().filter(c -> c.name().equalsIgnoreCase("DBSIZE")).findFirst().orElseThrow().client();
            assertThat(commands).filteredOn(c -> c.name().equalsIgnoreCase("EVALSHA")).hasSize(10)
                    .extracting(Command::client).doesNotContain(pool);
        }
    }

    /** A command Redis ran, as {@code MONITOR} shows it: the client's address and the first key. */
    record Command(String client, String name, String firstKey) {
    }

    /** {@code MONITOR} on a connection of its own: every command the server runs, as it runs it. */
    static final class Monitor implements AutoCloseable {

        private final Socket socket = new Socket();
        private final BufferedReader lines;

        Monitor(String host, int port) throws IOException {
            socket.setSoTimeout(5_000);
            socket.connect(new InetSocketAddress(host, port), 5_000);
            lines = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
            OutputStream out = socket.getOutputStream();
            out.write("MONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            assertThat(lines.readLine()).isEqualTo("+OK");
        }

        /** The next {@code count} commands named {@code name} (clients' commands, not a script's own). */
        List<Command> commands(String name, int count) throws IOException {
            return commands(Set.of(name), count);
        }

        /** The next {@code count} commands named one of {@code names}, in capitals (clients' commands, not a script's own). */
        List<Command> commands(Set<String> names, int count) throws IOException {
            List<Command> found = new ArrayList<>();
            while (found.size() < count) {
                // +1764583200.123456 [0 127.0.0.1:50712] "EVALSHA" "<sha>" "1" "held:0" "..."
                String line = lines.readLine();
                assertThat(line).as("MONITOR line").isNotNull();
                int client = line.indexOf(' ', line.indexOf('[')) + 1;
                int clientEnd = line.indexOf(']', client);
                List<String> args = quoted(line, clientEnd, 4);
                if (names.contains(args.get(0).toUpperCase(Locale.ROOT))) {
                    // a script's first key follows its SHA-1 and key count; a read's is its first argument
                    String first = args.get(0).equalsIgnoreCase("EVALSHA") ? args.get(3) : args.size() > 1 ? args.get(1) : "";
                    found.add(new Command(line.substring(client, clientEnd), args.get(0), first));
                }
            }
            return found;
        }

        /** The first {@code n} quoted arguments after {@code from} (fewer if the line has fewer). */
        private static List<String> quoted(String line, int from, int n) {
            List<String> args = new ArrayList<>();
            int at = from;
            while (args.size() < n) {
                int open = line.indexOf('"', at);
                int close = open < 0 ? -1 : line.indexOf('"', open + 1);
                if (close < 0) {
                    args.add("");
                    continue;
                }
                args.add(line.substring(open + 1, close));
                at = close + 1;
            }
            return args;
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
