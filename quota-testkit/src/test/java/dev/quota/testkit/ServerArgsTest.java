package dev.quota.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class ServerArgsTest {

    private static final Path BINARY = Path.of("/usr/bin/redis-server");
    private static final Path DIR = Path.of("/tmp/quota-redis-1");

    @Test
    void forVersion_redis7_enablesDebugFromLoopback_andSyncsReplicasWithoutDelay() {
        List<String> expected = List.of("--enable-debug-command", "local", "--repl-diskless-sync-delay", "0");

        assertThat(ServerArgs.forVersion(new RedisVersion(7, 0, 15))).isEqualTo(expected);
        assertThat(ServerArgs.forVersion(new RedisVersion(7, 2, 4))).isEqualTo(expected);
        assertThat(ServerArgs.forVersion(new RedisVersion(8, 0, 0))).isEqualTo(expected);
    }

    @Test
    void forVersion_redis6_addsNothing_asItWouldRefuseTheOption() {
        assertThat(ServerArgs.forVersion(new RedisVersion(6, 2, 6))).isEmpty();
        assertThat(ServerArgs.forVersion(new RedisVersion(5, 0, 14))).isEmpty();
    }

    @Test
    void commandLine_putsConfigFirst_andTheCallersArgumentsLast() {
        List<String> command = ServerArgs.commandLine(BINARY, new RedisVersion(7, 0, 15), DIR, 7001, "sentinel.conf",
                List.of("--sentinel"));

        assertThat(command).containsExactly("/usr/bin/redis-server", "/tmp/quota-redis-1/sentinel.conf",
                "--port", "7001", "--bind", "127.0.0.1", "--dir", "/tmp/quota-redis-1", "--save", "",
                "--appendonly", "no", "--enable-debug-command", "local", "--repl-diskless-sync-delay", "0",
                "--sentinel");
    }

    @Test
    void commandLine_withoutConfig_onRedis6() {
        List<String> command = ServerArgs.commandLine(BINARY, new RedisVersion(6, 2, 6), DIR, 7001, null,
                List.of("--maxmemory", "10mb"));

        assertThat(command).containsExactly("/usr/bin/redis-server", "--port", "7001", "--bind", "127.0.0.1",
                "--dir", "/tmp/quota-redis-1", "--save", "", "--appendonly", "no", "--maxmemory", "10mb");
    }

    @Test
    void isClusterEnabled_readsTheValue() {
        assertThat(ServerArgs.isClusterEnabled(List.of("--cluster-enabled", "yes"))).isTrue();
        assertThat(ServerArgs.isClusterEnabled(List.of("--cluster-enabled", "no"))).isFalse();
        assertThat(ServerArgs.isClusterEnabled(List.of("--cluster-enabled"))).isFalse();
        assertThat(ServerArgs.isClusterEnabled(List.of())).isFalse();
    }
}
