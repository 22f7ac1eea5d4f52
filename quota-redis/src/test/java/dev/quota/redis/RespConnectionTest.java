package dev.quota.redis;

import static dev.quota.redis.HeldReplies.awaitUntil;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Limit;
import dev.quota.core.QuotaStoreException;
import dev.quota.core.Refill;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import dev.quota.redis.internal.transport.HeldConnections;
import dev.quota.redis.internal.transport.RedissonLink;
import dev.quota.redis.internal.transport.RespConnection;
import dev.quota.testkit.MutableClock;
import dev.quota.testkit.RedisExtension;
import dev.quota.testkit.RedisServer;
import dev.quota.testkit.RespClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisClientConfig;
import org.redisson.config.Config;
import org.redisson.config.Credentials;

/**
 * The store's own connection to a master ({@link RespConnection}) against a real Redis: it
 * hand-shakes as Redisson would (password, database, client name), keeps alive with a {@code PING}
 * in order with the scripts, and when it is killed, or Redis stops answering, or restarts, what was
 * in flight fails in doubt and the next calls make a new connection. Bucket time stands still and
 * the engine's wall clock moves only when a test moves it.
 */
@Timeout(60)
class RespConnectionTest {

    /** 10 tokens, one an hour: nothing refills while a test runs. */
    private static final BucketSpec TEN = BucketSpec.of(
            List.of(new Limit("burst", 10, Refill.greedy(1, Duration.ofHours(1)))), 1);

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private final MutableClock clock = MutableClock.at("2026-12-01T10:00:00Z");
    private final AtomicLong wall = new AtomicLong();
    private final List<AutoCloseable> opened = new ArrayList<>();
    private final BucketKey key = new BucketKey("resp:" + UUID.randomUUID());
    private HeldConnections held;

    @AfterEach
    void closeAll() throws Exception {
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
    }

    private RedisStore store(RedisStoreBuilder builder) {
        builder.clock(clock);
        builder.wallNanos = wall::get;
        builder.link = link -> {
            held = ((RedissonLink) link).held();
            return link;
        };
        RedisStore store = builder.build();
        opened.add(store);
        return store;
    }

    /** The store's connection for the test's key, once it is made and hand-shaken. */
    private RespConnection connection() {
        RespConnection[] found = new RespConnection[1];
        awaitUntil(() -> (found[0] = held.connection(key.value())) != null);
        return found[0];
    }

    @Test
    void keepalive_pingsWhenIdle_onTheScriptsConnection_inOrderWithThem() throws Exception {
        RedisStore store = store(RedisStore.builder().uri(redis.uri()));
        store.tryConsume(key, TEN, 1); // makes the connection
        RespConnection connection = connection();

        List<HeldConnectionsTest.Command> seen = new ArrayList<>();
        try (HeldConnectionsTest.Monitor monitor = new HeldConnectionsTest.Monitor(
                redis.server().host(), redis.server().port())) {
            assertThat(store.tryConsume(key, TEN, 1).remaining()).containsExactly(8);
            connection.tickNow(); // a script since the last tick: no ping
            connection.tickNow(); // idle since: a ping
            assertThat(store.tryConsume(key, TEN, 1).remaining()).containsExactly(7);
            while (seen.stream().filter(c -> c.name().equalsIgnoreCase("EVALSHA")).count() < 2) {
                seen.addAll(monitor.commands(Set.of("EVALSHA", "PING"), 1));
            }
        }

        String mine = seen.stream().filter(c -> c.name().equalsIgnoreCase("EVALSHA")).findFirst().orElseThrow().client();
        assertThat(mine).isEqualTo(connection.localAddress());
        assertThat(seen.stream().filter(c -> c.client().equals(mine)).map(c -> c.name().toUpperCase(Locale.ROOT)))
                .containsExactly("EVALSHA", "PING", "EVALSHA");
        assertThat(connection.ready()).isTrue();
    }

    @Test
    void aUserAndPasswordAndDatabase_handShakeAsRedissonDoes_andTheKeysLandInThatDatabase() {
        try (RedisServer secured = RedisServer.start();
             RespClient admin = RespClient.connect(secured.host(), secured.port())) {
            admin.command("ACL", "SETUSER", "quota", "on", ">s3cret", "~*", "+@all");
            admin.command("CONFIG", "SET", "requirepass", "other");
            Config config = new Config();
            config.setCredentialsResolver(address -> CompletableFuture.completedFuture(new Credentials("quota", "s3cret")));
            config.useSingleServer().setAddress(secured.uri()).setDatabase(3).setClientName("quota-resp-test");
            RedissonClient client = Redisson.create(config);
            opened.add(client::shutdown);
            RedisStore store = store(RedisStore.builder().client(client));

            store.tryConsume(key, TEN, 1);
            RespConnection connection = connection();
            assertThat(store.tryConsume(key, TEN, 2).remaining()).containsExactly(7);

            admin.command("AUTH", "other");
            String entry = clientEntry(admin, connection.localAddress());
            assertThat(entry).contains(" name=quota-resp-test ", " db=3 ", " user=quota ", " cmd=evalsha ");
            admin.command("SELECT", "3");
            assertThat(admin.command("EXISTS", key.value())).isEqualTo(1L);
            admin.command("SELECT", "0");
            assertThat(admin.dbSize()).isZero();
        }
    }

    @Test
    void aRefusedHandShake_leavesTheExecutorCarryingTheCalls_exactly() {
        try (RedisServer secured = RedisServer.start();
             RespClient admin = RespClient.connect(secured.host(), secured.port())) {
            admin.command("CONFIG", "SET", "requirepass", "right");
            Config config = new Config();
            config.setPassword("right");
            config.useSingleServer().setAddress(secured.uri());
            RedissonClient client = Redisson.create(config);
            opened.add(client::shutdown);
            RedisStore store = store(RedisStore.builder().client(client));
            store.tryConsume(key, TEN, 1);
            RespConnection connection = connection();
            admin.command("AUTH", "right");
            admin.command("CONFIG", "SET", "requirepass", "changed"); // existing connections stay authenticated
            admin.command("CLIENT", "KILL", "ADDR", connection.localAddress());

            // every decision answered exactly, through the executor's connections (still authenticated),
            // while the store's own connection is refused
            for (int left = 8; left >= 5; left--) {
                assertThat(store.tryConsume(key, TEN, 1).remaining()).containsExactly(left);
            }
            assertThat(held.connection(key.value())).isNull();
        }
    }

    @Test
    void aKilledConnection_failsWhatWasInFlightInDoubt_andTheNextCallsMakeANewOne() throws Exception {
        RedisStore store = store(RedisStore.builder().uri(redis.uri()));
        assertThat(store.tryConsume(key, TEN, 1).remaining()).containsExactly(9);
        RespConnection killed = connection();
        try (RespClient admin = RespClient.connect(redis.server().host(), redis.server().port())) {
            admin.command("CLIENT", "PAUSE", "20000", "WRITE"); // the script waits in Redis, unanswered
            CompletableFuture<long[]> inFlight = consume(store, 1);
            awaitUntil(() -> awaiting(killed) == 1);

            admin.command("CLIENT", "KILL", "ADDR", killed.localAddress());
            admin.command("CLIENT", "UNPAUSE");

            assertThat(inDoubt(inFlight)).isTrue();
        }
        assertThat(killed.closedForGood()).isTrue();
        // Redis drops a closed client's postponed command: the script did not run
        assertThat(store.tryConsume(key, TEN, 1).remaining()).containsExactly(8);
        RespConnection next = connection();
        assertThat(next).isNotSameAs(killed);
        assertThat(store.tryConsume(key, TEN, 1).remaining()).containsExactly(7);
        assertThat(awaiting(next)).isZero();
    }

    @Test
    void aPeerThatStopsAnswering_isTimedOutByTheEngine_closed_andANewConnectionMade() throws Exception {
        RedisStore store = store(RedisStore.builder().uri(redis.uri()));
        assertThat(store.tryConsume(key, TEN, 1).remaining()).containsExactly(9);
        RespConnection hung = connection();
        try (RespClient admin = RespClient.connect(redis.server().host(), redis.server().port())) {
            admin.command("CLIENT", "PAUSE", "20000", "WRITE");
            CompletableFuture<long[]> inFlight = consume(store, 1);
            awaitUntil(() -> awaiting(hung) == 1);
            String address = hung.localAddress();

            wall.addAndGet(RedisStoreBuilder.DEFAULT_TIMEOUT.toNanos() + 1);

            assertThat(inDoubt(inFlight)).isTrue();
            awaitUntil(hung::closedForGood);
            // closed by the connection's thread, after it is marked closed: unpaused before Redis
            // saw the close, Redis would run the postponed script
            awaitUntil(() -> !((String) admin.command("CLIENT", "LIST")).contains(" addr=" + address + " "));
            admin.command("CLIENT", "UNPAUSE");
        }
        assertThat(store.tryConsume(key, TEN, 1).remaining()).containsExactly(8);
        assertThat(connection()).isNotSameAs(hung);
    }

    @Test
    void keepalive_closesAConnectionThatAnsweredNothingForAWholeInterval() throws Exception {
        RedisStore store = store(RedisStore.builder().uri(redis.uri()));
        store.tryConsume(key, TEN, 1);
        RespConnection hung = connection();
        try (RespClient admin = RespClient.connect(redis.server().host(), redis.server().port())) {
            admin.command("CLIENT", "PAUSE", "20000", "WRITE");
            CompletableFuture<long[]> inFlight = consume(store, 1);
            awaitUntil(() -> awaiting(hung) == 1);
            String address = hung.localAddress();

            hung.tickNow(); // awaited, and written since the last tick
            assertThat(hung.closedForGood()).isFalse();
            hung.tickNow(); // still awaited, nothing answered for a whole interval

            awaitUntil(hung::closedForGood);
            assertThat(inDoubt(inFlight)).isTrue();
            // unpaused before Redis saw the close, Redis would run the postponed script
            awaitUntil(() -> !((String) admin.command("CLIENT", "LIST")).contains(" addr=" + address + " "));
            admin.command("CLIENT", "UNPAUSE");
        }
        assertThat(store.tryConsume(key, TEN, 1).remaining()).containsExactly(8);
    }

    @Test
    void redisRestarted_theConnectionIsMadeAgain_andDecidesOnWhatTheNewServerHolds() {
        RedisStore store = store(RedisStore.builder().uri(redis.uri()));
        assertThat(store.tryConsume(key, TEN, 3).remaining()).containsExactly(7);
        RespConnection before = connection();

        redis.server().restart(); // empty: the bucket is new again

        awaitUntil(before::closedForGood);
        long[] remaining = null;
        while (remaining == null) {
            try {
                remaining = store.tryConsume(key, TEN, 1).remaining();
            } catch (QuotaStoreException e) {
                // Redisson's pool reconnecting: the executor's call failed, nothing taken
            }
        }
        assertThat(remaining).containsExactly(9);
        assertThat(connection()).isNotSameAs(before);
        assertThat(store.tryConsume(key, TEN, 1).remaining()).containsExactly(8);
    }

    @Test
    void tlsAndWhatElseRedissonsOwnConnectionsCarry_getNoConnectionOfTheStores() {
        assertThat(RespConnection.supports(new RedisClientConfig().setAddress("redis://127.0.0.1:6379"))).isTrue();
        assertThat(RespConnection.supports(new RedisClientConfig().setAddress("rediss://127.0.0.1:6379"))).isFalse();
        assertThat(RespConnection.supports(new RedisClientConfig().setAddress("redis://127.0.0.1:6379")
                .setProtocol(org.redisson.config.Protocol.RESP3))).isFalse();
    }

    private CompletableFuture<long[]> consume(RedisStore store, long tokens) {
        CompletableFuture<long[]> decided = new CompletableFuture<>();
        Thread caller = new Thread(() -> {
            try {
                decided.complete(store.tryConsume(key, TEN, tokens).remaining());
            } catch (Throwable t) {
                decided.completeExceptionally(t);
            }
        });
        caller.start();
        return decided;
    }

    private static boolean inDoubt(CompletableFuture<long[]> decision) {
        try {
            decision.join();
            return false;
        } catch (CompletionException e) {
            assertThat(e.getCause()).isInstanceOf(QuotaStoreException.class);
            return ((QuotaStoreException) e.getCause()).inDoubt();
        }
    }

    private static int awaiting(RespConnection connection) {
        try {
            return connection.awaiting();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static String clientEntry(RespClient admin, String address) {
        String list = (String) admin.command("CLIENT", "LIST");
        return list.lines().filter(line -> line.contains(" addr=" + address + " ")).findFirst()
                .map(line -> line + " ").orElseThrow(() -> new AssertionError("no client " + address + " in\n" + list));
    }
}
