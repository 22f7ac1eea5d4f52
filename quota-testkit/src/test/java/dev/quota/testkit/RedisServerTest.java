package dev.quota.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.nio.file.Files;
import java.nio.file.Path;
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
