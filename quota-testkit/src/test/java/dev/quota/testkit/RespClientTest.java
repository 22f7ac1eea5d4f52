package dev.quota.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class RespClientTest {

    private static RedisServer server;

    @BeforeAll
    static void startServer() {
        server = RedisServer.start();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    @BeforeEach
    void emptyServer() {
        try (RespClient client = connect()) {
            client.flushAll();
            client.command("CONFIG", "RESETSTAT");
        }
    }

    private static RespClient connect() {
        return RespClient.connect(server.host(), server.port());
    }

    @Test
    void commandStats_countsEachCall() {
        try (RespClient client = connect()) {
            client.command("SET", "a", "1");
            client.command("GET", "a");
            client.command("GET", "a");
            client.command("GET", "b");

            assertThat(client.commandStats())
                    .containsEntry("get", 3L)
                    .containsEntry("set", 1L)
                    .doesNotContainKey("evalsha");
        }
    }

    @Test
    void command_decodesIntegersArraysAndNils() {
        try (RespClient client = connect()) {
            assertThat(client.command("INCRBY", "n", "41")).isEqualTo(41L);
            assertThat(client.command("RPUSH", "list", "x", "", "z")).isEqualTo(3L);
            assertThat(client.command("LRANGE", "list", "0", "-1")).isEqualTo(List.of("x", "", "z"));
            assertThat(client.command("MGET", "n", "nope")).isEqualTo(java.util.Arrays.asList("41", null));
            assertThat(client.command("BLPOP", "empty", "0.05")).isNull();
        }
    }

    @Test
    void command_onErrorReply_throwsAndConnectionStaysUsable() {
        try (RespClient client = connect()) {
            client.command("SET", "s", "text");

            assertThatThrownBy(() -> client.command("INCR", "s"))
                    .isInstanceOfSatisfying(RespClient.RedisErrorReply.class,
                            e -> assertThat(e.code()).isEqualTo("ERR"))
                    .hasMessageContaining("not an integer");
            assertThatThrownBy(() -> client.command("LPUSH", "s", "x"))
                    .isInstanceOfSatisfying(RespClient.RedisErrorReply.class,
                            e -> assertThat(e.code()).isEqualTo("WRONGTYPE"));
            assertThat(client.command("GET", "s")).isEqualTo("text");
        }
    }

    @Test
    void command_readsLargeBulkStrings() {
        String big = "x".repeat(200_000);
        try (RespClient client = connect()) {
            client.command("SET", "big", big);

            assertThat(client.command("GET", "big")).isEqualTo(big);
        }
    }

    @Test
    void dbSizeAndFlushAll_reflectKeys() {
        try (RespClient client = connect()) {
            client.command("MSET", "a", "1", "b", "2", "c", "3");
            assertThat(client.dbSize()).isEqualTo(3);

            client.flushAll();

            assertThat(client.dbSize()).isZero();
        }
    }

    @Test
    void info_returnsTheSection() {
        try (RespClient client = connect()) {
            String replication = client.info("replication");

            assertThat(RespClient.infoField(replication, "role")).isEqualTo("master");
            assertThat(RespClient.infoField(replication, "no_such_field")).isNull();
        }
    }
}
