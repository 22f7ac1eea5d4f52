package dev.quota.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RedisBinaryTest {

    @TempDir
    Path temp;

    @Test
    void resolve_returnsAnExecutable() {
        Path binary = RedisBinary.resolve();

        assertThat(binary).isRegularFile().isExecutable();
        assertThat(RedisBinary.resolve()).isSameAs(binary);
    }

    @Test
    void resolve_prefersTheEnvironmentVariable() throws IOException {
        Path fake = executable(temp.resolve("my-redis"));

        assertThat(RedisBinary.resolve(Map.of(RedisBinary.ENV_VAR, fake.toString()), temp)).isEqualTo(fake);
    }

    @Test
    void resolve_withMissingEnvPath_throwsNamingIt() {
        assertThatThrownBy(() -> RedisBinary.resolve(Map.of(RedisBinary.ENV_VAR, "/nope/redis"), temp))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("/nope/redis");
    }

    @Test
    void resolve_findsRedisServerOnPath() throws IOException {
        Path bin = Files.createDirectory(temp.resolve("bin"));
        Path fake = executable(bin.resolve("redis-server"));

        assertThat(RedisBinary.resolve(Map.of("PATH", "/nonexistent:" + bin), temp)).isEqualTo(fake);
    }

    @Test
    void resolve_withoutEnvOrPath_extractsTheShippedBinary() {
        Path binary = RedisBinary.resolve(Map.of("PATH", ""), temp);

        assertThat(binary).startsWith(temp).isRegularFile().isExecutable();
        assertThat(binary.getFileName().toString()).startsWith("redis-server-");
    }

    @Test
    void version_isAskedOnce_andMatchesTheResolvedBinary() {
        RedisVersion version = RedisBinary.version();

        assertThat(RedisBinary.version()).isSameAs(version);
        assertThat(RedisBinary.version(RedisBinary.resolve())).isEqualTo(version);
        assertThat(version.isAtLeast(5, 0)).as("%s", version).isTrue();
    }

    @Test
    void version_runsTheBinaryWithDashDashVersion() throws IOException {
        Path redis7 = script(temp.resolve("redis7"), "[ \"$1\" = --version ] || exit 3\n"
                + "echo 'Redis server v=7.0.15 sha=00000000:0 malloc=jemalloc-5.3.0 bits=64 build=ae4d7c971a948f0'");
        Path redis62 = script(temp.resolve("redis62"),
                "echo 'Redis server v=6.2.11 sha=00000000:0 malloc=jemalloc-5.1.0 bits=64 build=f5b1f28871c566b4'");

        assertThat(RedisBinary.version(redis7)).isEqualTo(new RedisVersion(7, 0, 15));
        assertThat(RedisBinary.version(redis62)).isEqualTo(new RedisVersion(6, 2, 11));
    }

    @Test
    void version_ofSomethingElse_throwsNamingTheBinaryAndItsOutput() throws IOException {
        Path notRedis = script(temp.resolve("not-redis"), "echo 'usage: not-redis FILE'");
        Path failing = script(temp.resolve("failing"), "echo 'cannot open shared object' >&2; exit 127");

        assertThatThrownBy(() -> RedisBinary.version(notRedis))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(notRedis.toString())
                .hasMessageContaining("usage: not-redis FILE");
        assertThatThrownBy(() -> RedisBinary.version(failing))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("exited with 127")
                .hasMessageContaining("cannot open shared object");
    }

    @Test
    void extract_racingThreads_allGetTheSameCompleteFile() throws Exception {
        String resource = RedisBinary.resourceName(System.getProperty("os.name"), System.getProperty("os.arch"));
        int threads = 4;
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Path>> results = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                results.add(pool.submit(() -> {
                    go.await();
                    return RedisBinary.extract(resource, temp);
                }));
            }
            go.countDown();
            Path first = results.get(0).get();
            for (Future<Path> result : results) {
                assertThat(result.get()).isEqualTo(first);
            }
            assertThat(Files.size(first)).isEqualTo(Files.size(RedisBinary.resolve(Map.of("PATH", ""), temp)));
            try (var files = Files.list(first.getParent())) {
                assertThat(files).containsExactly(first); // no temp files left behind
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void resourceName_mapsOsAndArch() {
        assertThat(RedisBinary.resourceName("Linux", "amd64")).isEqualTo("redis-server-6.2.6-v5-linux-amd64");
        assertThat(RedisBinary.resourceName("Linux", "aarch64")).isEqualTo("redis-server-6.2.7-linux-arm64");
        assertThat(RedisBinary.resourceName("Mac OS X", "aarch64")).isEqualTo("redis-server-6.2.6-v5-darwin-arm64");
        assertThat(RedisBinary.resourceName("Windows 11", "amd64"))
                .isEqualTo("redis-server-5.0.14.1-windows-amd64.exe");
        assertThatThrownBy(() -> RedisBinary.resourceName("SunOS", "sparcv9"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("os.name=SunOS, os.arch=sparcv9");
    }

    private static Path script(Path path, String body) throws IOException {
        Files.writeString(path, "#!/bin/sh\n" + body + "\n");
        assertThat(path.toFile().setExecutable(true)).isTrue();
        return path;
    }

    private static Path executable(Path path) throws IOException {
        Files.writeString(path, "#!/bin/sh\n");
        assertThat(path.toFile().setExecutable(true)).isTrue();
        return path;
    }
}
