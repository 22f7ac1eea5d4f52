package dev.quota.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class RedisServerTest {

    @Test
    void start_answersOnLoopbackAndStoresValues() {
        try (RedisServer server = RedisServer.start();
                RespClient client = RespClient.connect(server.host(), server.port())) {
            assertThat(server.isRunning()).isTrue();
            assertThat(server.host()).isEqualTo("127.0.0.1");
            assertThat(server.uri()).isEqualTo("redis://127.0.0.1:" + server.port());

            assertThat(client.command("SET", "greeting", "héllo wörld")).isEqualTo("OK");
            assertThat(client.command("GET", "greeting")).isEqualTo("héllo wörld");
            assertThat(client.command("GET", "missing")).isNull();
            assertThat(client.dbSize()).isEqualTo(1);
        }
    }

    @Test
    void start_disablesPersistence() {
        try (RedisServer server = RedisServer.start();
                RespClient client = RespClient.connect(server.host(), server.port())) {
            assertThat(client.command("CONFIG", "GET", "save")).isEqualTo(List.of("save", ""));
            assertThat(client.command("CONFIG", "GET", "appendonly")).isEqualTo(List.of("appendonly", "no"));
        }
    }

    @Test
    void start_withExtraArgs_appliesThem() {
        try (RedisServer server = RedisServer.start(List.of("--maxmemory", "10mb"));
                RespClient client = RespClient.connect(server.host(), server.port())) {
            assertThat(client.command("CONFIG", "GET", "maxmemory")).isEqualTo(List.of("maxmemory", "10485760"));
        }
    }

    @Test
    void start_withBadArgs_throwsWithServerLog() {
        assertThatThrownBy(() -> RedisServer.start(List.of("--no-such-option", "1")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("exited")
                .hasMessageContaining("no-such-option");
    }

    /** Redis 7 answered "ERR DEBUG command not allowed" unless started with --enable-debug-command. */
    @Test
    void debugSleep_isAccepted_byWhicheverBinaryIsResolved() {
        try (RedisServer server = RedisServer.start();
                RespClient client = RespClient.connect(server.host(), server.port())) {
            assertThat(client.command("DEBUG", "SLEEP", "0")).as("redis-server %s at %s", RedisBinary.version(),
                    RedisBinary.resolve()).isEqualTo("OK");
        }
    }

    /**
     * Redis 7 syncs replicas diskless and by default waited 5 s for more replicas before serving a new
     * one: a sentinel topology took 5 s to start instead of 2, a restarted node as long to catch up.
     */
    @Test
    void start_replica_isServedWithoutTheDisklessSyncDelay() {
        try (RedisServer master = RedisServer.start();
                RedisServer replica = RedisServer.start(
                        List.of("--replicaof", master.host(), Integer.toString(master.port())));
                RespClient m = RespClient.connect(master.host(), master.port());
                RespClient r = RespClient.connect(replica.host(), replica.port())) {
            Object diskless = m.command("CONFIG", "GET", "repl-diskless-sync");
            Object delay = m.command("CONFIG", "GET", "repl-diskless-sync-delay");

            // 6.2 syncs through a file by default, without the delay
            if (diskless.equals(List.of("repl-diskless-sync", "yes"))) {
                assertThat(delay).isEqualTo(List.of("repl-diskless-sync-delay", "0"));
            }
            m.command("SET", "k", "v");
            Await.until(Duration.ofSeconds(10), () -> "v".equals(r.command("GET", "k")), () -> "k on the replica");
            assertThat(RespClient.infoField(r.info("replication"), "master_link_status")).isEqualTo("up");
        }
    }

    @Test
    void pause_stallsTheServerForTheDuration_whichThenAnswersWithItsData() {
        Duration pause = Duration.ofMillis(400);
        try (RedisServer server = RedisServer.start();
                RespClient client = RespClient.connect(server.host(), server.port())) {
            client.command("SET", "k", "v");

            long start = System.nanoTime();
            server.pause(pause);
            Duration elapsed = Duration.ofNanos(System.nanoTime() - start);

            // pause() returns with the reply to DEBUG SLEEP, which the server sends when it wakes
            assertThat(elapsed).isGreaterThanOrEqualTo(pause);
            assertThat(server.isRunning()).isTrue();
            assertThat(client.command("GET", "k")).isEqualTo("v");
        }
    }

    @Test
    void pause_withNegativeDuration_throws_andWhenStopped_throws() {
        try (RedisServer server = RedisServer.start()) {
            assertThatThrownBy(() -> server.pause(Duration.ofMillis(-1)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("pause must be >= 0 but was PT-0.001S");

            server.stop();

            assertThatThrownBy(() -> server.pause(Duration.ofMillis(1)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("not running");
        }
    }

    @Test
    void kill_refusesConnections_andRestart_comesBackEmptyOnSamePort() {
        try (RedisServer server = RedisServer.start()) {
            int port = server.port();
            try (RespClient client = RespClient.connect(server.host(), port)) {
                client.command("SET", "k", "v");
            }

            server.kill();

            assertThat(server.isRunning()).isFalse();
            assertThatThrownBy(() -> RespClient.connect(server.host(), port))
                    .isInstanceOf(UncheckedIOException.class)
                    .hasRootCauseInstanceOf(ConnectException.class);

            server.restart();

            assertThat(server.isRunning()).isTrue();
            assertThat(server.port()).isEqualTo(port);
            try (RespClient client = RespClient.connect(server.host(), port)) {
                assertThat(client.command("PING")).isEqualTo("PONG");
                assertThat(client.command("GET", "k")).isNull();
                assertThat(client.dbSize()).isZero();
            }
        }
    }

    @Test
    void stop_endsTheProcess() {
        try (RedisServer server = RedisServer.start()) {
            server.stop();

            assertThat(server.isRunning()).isFalse();
            assertThatThrownBy(() -> RespClient.connect(server.host(), server.port()))
                    .hasRootCauseInstanceOf(ConnectException.class);
        }
    }

    @Test
    void close_stopsTheServerAndDeletesItsDirectory() {
        RedisServer server = RedisServer.start();
        Path dir = server.logFile().getParent();
        assertThat(server.logFile()).isRegularFile();

        server.close();

        assertThat(server.isRunning()).isFalse();
        assertThat(Files.exists(dir)).isFalse();
        assertThatThrownBy(server::restart).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
    }

    @Test
    void start_twice_usesDifferentPortsAndDirectories() {
        try (RedisServer a = RedisServer.start(); RedisServer b = RedisServer.start()) {
            assertThat(a.port()).isNotEqualTo(b.port());
            assertThat(a.logFile()).isNotEqualTo(b.logFile());
        }
    }
}
