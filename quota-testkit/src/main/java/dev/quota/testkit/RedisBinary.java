package dev.quota.testkit;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.net.URLConnection;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds a redis-server executable, so that no test needs one installed. In order: the path in the
 * environment variable {@value #ENV_VAR}; {@code redis-server} on the PATH; else the binary that the
 * embedded-redis jar ships for this OS and CPU (Redis 6.2 on Linux and macOS, 5.0 on Windows),
 * extracted once to {@code ${java.io.tmpdir}/quota-<resource>/}, e.g.
 * {@code /tmp/quota-redis-server-6.2.6-v5-linux-amd64/redis-server-6.2.6-v5-linux-amd64}.
 * {@link #version()} says which Redis that is, so servers can be started with what that release needs.
 */
public final class RedisBinary {

    /** Environment variable naming a redis-server executable to use instead of any other. */
    public static final String ENV_VAR = "QUOTA_REDIS_SERVER";

    private static final Logger log = LoggerFactory.getLogger(RedisBinary.class);
    private static final Object LOCK = new Object();
    private static final Duration VERSION_TIMEOUT = Duration.ofSeconds(10);
    private static volatile Path resolved;
    private static volatile RedisVersion resolvedVersion;

    private RedisBinary() {
    }

    /**
     * The redis-server executable, resolved once per JVM (thread-safe; several JVMs extracting at once
     * is safe too: each writes a temp file and moves it into place atomically).
     *
     * @throws IllegalStateException if {@value #ENV_VAR} names a missing or non-executable file, or no
     *     binary is shipped for this OS/architecture
     */
    public static Path resolve() {
        Path path = resolved;
        if (path == null) {
            synchronized (LOCK) {
                path = resolved;
                if (path == null) {
                    path = resolve(System.getenv(), Path.of(System.getProperty("java.io.tmpdir")));
                    log.debug("using redis-server at {}", path);
                    resolved = path;
                }
            }
        }
        return path;
    }

    /**
     * The version of the {@link #resolve() resolved} binary, from {@code redis-server --version}, asked
     * once per JVM: 6.2.11 for the binary embedded-redis ships for Linux on x86-64 (its file name says
     * 6.2.6), 7.0.15 for Debian 12's.
     *
     * @throws IllegalStateException if the binary cannot be resolved, or does not print a version within
     *     10 seconds and exit 0
     */
    public static RedisVersion version() {
        RedisVersion version = resolvedVersion;
        if (version == null) {
            synchronized (LOCK) {
                version = resolvedVersion;
                if (version == null) {
                    Path binary = resolve();
                    version = version(binary);
                    log.info("redis-server {} at {}", version, binary);
                    resolvedVersion = version;
                }
            }
        }
        return version;
    }

    /** The uncached {@code <binary> --version}. */
    static RedisVersion version(Path binary) {
        Process process;
        try {
            process = new ProcessBuilder(binary.toString(), "--version").redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + binary + " --version", e);
        }
        try {
            // one short line: it fits the pipe's buffer, so waiting before reading cannot deadlock
            if (!Await.exit(process, VERSION_TIMEOUT)) {
                throw new IllegalStateException(binary + " --version did not exit within " + VERSION_TIMEOUT);
            }
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (process.exitValue() != 0) {
                throw new IllegalStateException(binary + " --version exited with " + process.exitValue()
                        + ": " + output.strip());
            }
            return RedisVersion.parse(output);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the output of " + binary + " --version", e);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(binary + " is not a redis-server: " + e.getMessage(), e);
        } finally {
            process.destroyForcibly();
        }
    }

    /** The uncached lookup, with the environment and the cache root given (for tests). */
    static Path resolve(Map<String, String> env, Path cacheRoot) {
        String explicit = env.get(ENV_VAR);
        if (explicit != null && !explicit.isBlank()) {
            Path path = Path.of(explicit);
            if (!Files.isRegularFile(path) || !Files.isExecutable(path)) {
                throw new IllegalStateException(ENV_VAR + " must name an executable file but was " + explicit);
            }
            return path;
        }
        String pathVar = env.getOrDefault("PATH", "");
        for (String dir : pathVar.split(File.pathSeparator, -1)) { // empty entries skipped below
            if (dir.isEmpty()) {
                continue;
            }
            for (String name : new String[] {"redis-server", "redis-server.exe"}) {
                Path candidate = Path.of(dir, name);
                if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                    return candidate;
                }
            }
        }
        String resource = resourceName(System.getProperty("os.name"), System.getProperty("os.arch"));
        return extract(resource, cacheRoot);
    }

    /** The name of the binary inside the embedded-redis jar, e.g. {@code redis-server-6.2.6-v5-linux-amd64}. */
    static String resourceName(String osName, String osArch) {
        String os = osName.toLowerCase(Locale.ROOT);
        String arch = osArch.toLowerCase(Locale.ROOT);
        boolean x64 = arch.equals("amd64") || arch.equals("x86_64");
        boolean arm64 = arch.equals("aarch64") || arch.equals("arm64");
        boolean x86 = arch.equals("x86") || arch.equals("i386") || arch.equals("i686");
        if (os.contains("linux")) {
            if (x64) {
                return "redis-server-6.2.6-v5-linux-amd64";
            }
            if (arm64) {
                return "redis-server-6.2.7-linux-arm64";
            }
            if (x86) {
                return "redis-server-6.2.7-linux-386";
            }
        } else if (os.contains("mac") || os.contains("darwin")) {
            if (x64) {
                return "redis-server-6.2.6-v5-darwin-amd64";
            }
            if (arm64) {
                return "redis-server-6.2.6-v5-darwin-arm64";
            }
        } else if (os.contains("windows") && x64) {
            return "redis-server-5.0.14.1-windows-amd64.exe";
        }
        throw new IllegalStateException("embedded-redis ships no redis-server for os.name=" + osName
                + ", os.arch=" + osArch + "; install one and set " + ENV_VAR);
    }

    /**
     * Copies the classpath resource to {@code cacheRoot/quota-<resource>/<resource>} unless a file
     * of the same size is already there. A racing extractor writes its own temp file; the atomic move
     * means nobody ever sees a half-written binary.
     */
    static Path extract(String resource, Path cacheRoot) {
        URL url = RedisBinary.class.getClassLoader().getResource(resource);
        if (url == null) {
            throw new IllegalStateException("resource " + resource + " not on the classpath (is embedded-redis?)");
        }
        try {
            Path dir = Files.createDirectories(cacheRoot.resolve("quota-" + resource));
            Path target = dir.resolve(resource);
            URLConnection connection = url.openConnection();
            connection.setUseCaches(false);
            long size = connection.getContentLengthLong();
            if (Files.isRegularFile(target) && Files.isExecutable(target) && Files.size(target) == size) {
                return target;
            }
            Path temp = Files.createTempFile(dir, resource, ".tmp");
            try {
                try (InputStream in = connection.getInputStream()) {
                    Files.copy(in, temp, StandardCopyOption.REPLACE_EXISTING);
                }
                if (!temp.toFile().setExecutable(true, false)) {
                    throw new IllegalStateException("cannot make " + temp + " executable");
                }
                try {
                    Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
                }
            } finally {
                Files.deleteIfExists(temp);
            }
            log.debug("extracted {} to {}", resource, target);
            return target;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot extract " + resource + " to " + cacheRoot, e);
        }
    }
}
