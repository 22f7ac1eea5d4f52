package dev.quota.consumer;

import dev.quota.testkit.FreePort;
import dev.quota.testkit.RawHttp;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One of the projects under {@code quota-consumer-tests/projects}: copied to {@code target/consumers},
 * built there with Maven as a user would ({@code mvn -B -q package}), and run as a process of its
 * own ({@code java -jar target/bank.jar}, with {@code PORT}, {@code REDIS_URL} and
 * {@code QUOTA_ADMIN_TOKEN} in its environment and its copy as the working directory, where its
 * plans.yaml is).
 */
final class ConsumerProject {

    /** The first build downloads the runtime from Maven Central; later ones take 10 to 30 seconds. */
    static final Duration BUILD_TIMEOUT = Duration.ofMinutes(15);
    static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    /** The admin API's token, which every project reads from {@code QUOTA_ADMIN_TOKEN}. */
    static final String ADMIN_TOKEN = "consumer-admin-token-0123456789-abcdefGHIJ";

    private final String name;
    private final Path dir;
    /** The JDK that builds and runs the project. */
    private final Path javaHome;
    private volatile Duration buildTime;

    ConsumerProject(String name) {
        this(name, Path.of(System.getProperty("java.home")));
    }

    /**
     * A project built and run with the JDK at {@code javaHome}. A name {@code base+overlay} is the
     * project {@code base} with the files of {@code overlays/overlay} added (such as an
     * {@code Application} that lists its classes).
     */
    ConsumerProject(String name, Path javaHome) {
        this.name = name;
        this.dir = Path.of("target", "consumers", name).toAbsolutePath();
        this.javaHome = javaHome;
    }

    String name() {
        return name;
    }

    Duration buildTime() {
        return buildTime;
    }

    /**
     * Copies the project afresh and packages it.
     *
     * @throws IllegalStateException if Maven fails or takes longer than {@link #BUILD_TIMEOUT}; the
     *                               message holds Maven's output
     */
    void build(Path localRepository) {
        long start = System.nanoTime();
        String[] parts = name.split("\\+", 2);
        copyFresh(Checkout.projects().resolve(parts[0]), dir);
        if (parts.length > 1) {
            copyInto(Checkout.projects().resolveSibling("overlays").resolve(parts[1]), dir);
        }
        Path log = dir.resolveSibling(name + "-build.log");
        ProcessBuilder maven = new ProcessBuilder(MavenCommand.packageCommand(localRepository))
                .directory(dir.toFile()).redirectErrorStream(true).redirectOutput(log.toFile());
        // short-lived JVMs: the C1 compiler alone starts Maven faster
        maven.environment().merge("MAVEN_OPTS", "-XX:TieredStopAtLevel=1", (old, add) -> old + " " + add);
        maven.environment().put("JAVA_HOME", javaHome.toString());
        int exit = run(maven, BUILD_TIMEOUT, "mvn package of " + name);
        buildTime = Duration.ofNanos(System.nanoTime() - start);
        if (exit != 0) {
            throw new IllegalStateException("mvn package of consumer project " + name + " failed (exit " + exit
                    + "):\n" + read(log));
        }
        if (!Files.isRegularFile(jar()) && !Files.isRegularFile(war())) {
            throw new IllegalStateException(name + ": mvn package made neither " + jar() + " nor " + war());
        }
    }

    /** Starts the built service against {@code redisUri} and waits until it answers HTTP. */
    Running start(String redisUri) {
        return start(redisUri, Map.of());
    }

    /**
     * Starts the built service against {@code redisUri}, with {@code environment} added to its
     * environment, and waits until it answers HTTP.
     */
    Running start(String redisUri, Map<String, String> environment) {
        Running running = launch(redisUri, environment);
        try {
            running.awaitAnswering();
        } catch (RuntimeException e) {
            running.close();
            throw e;
        }
        return running;
    }

    /** Starts the built service against {@code redisUri}, without waiting for anything. */
    Running launch(String redisUri) {
        return launch(redisUri, Map.of());
    }

    private Running launch(String redisUri, Map<String, String> environment) {
        int port = freePort();
        Path log = dir.resolveSibling(name + "-run.log");
        String java = javaHome.resolve("bin").resolve("java").toString();
        ProcessBuilder builder = new ProcessBuilder(java, "-Xmx256m", "-XX:TieredStopAtLevel=1", "-jar",
                jar().toString())
                .directory(dir.toFile()).redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().putAll(Map.of("PORT", Integer.toString(port), "REDIS_URL", redisUri,
                "QUOTA_ADMIN_TOKEN", ADMIN_TOKEN));
        builder.environment().putAll(environment);
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new Running(name, process, port, log);
    }

    private Path jar() {
        return dir.resolve("target").resolve("bank.jar");
    }

    /** The WAR a project for a Jakarta EE server builds, beside the server it unpacked into its target/. */
    Path war() {
        return dir.resolve("target").resolve("bank.war");
    }

    /** The built copy of the project, where its target/ is. */
    Path dir() {
        return dir;
    }

    /** A consumer service, up and answering. */
    static final class Running implements AutoCloseable {
        private final String name;
        private final Process process;
        private final int port;
        private final Path log;

        Running(String name, Process process, int port, Path log) {
            this.name = name;
            this.process = process;
            this.port = port;
            this.log = log;
        }

        int port() {
            return port;
        }

        /** What the service printed so far. */
        String output() {
            return read(log);
        }

        /** Polls until any HTTP answer comes back (a 404 for a path no resource has), dies, or the deadline passes. */
        private void awaitAnswering() {
            long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
            while (true) {
                if (!process.isAlive()) {
                    throw new IllegalStateException(name + " exited with " + process.exitValue() + " before it answered:\n"
                            + output());
                }
                try {
                    RawHttp.get("127.0.0.1", port, "/not-a-resource");
                    return;
                } catch (UncheckedIOException notListeningYet) {
                    if (System.nanoTime() - deadline > 0) {
                        throw new IllegalStateException(name + " did not answer on port " + port + " within "
                                + START_TIMEOUT + ":\n" + output(), notListeningYet);
                    }
                }
                pause(Duration.ofMillis(100));
            }
        }

        /**
         * Polls the output until it contains {@code text}, and returns it; fails when the process
         * exits or the deadline passes first.
         */
        String awaitOutput(String text, Duration timeout) {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (true) {
                String output = output();
                if (output.contains(text)) {
                    return output;
                }
                if (!process.isAlive()) {
                    throw new IllegalStateException(name + " exited with " + process.exitValue() + " before it printed \""
                            + text + "\":\n" + output());
                }
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException(name + " did not print \"" + text + "\" within " + timeout
                            + ":\n" + output);
                }
                pause(Duration.ofMillis(100));
            }
        }

        /**
         * SIGTERM, then SIGKILL if it has not exited within 10 seconds; the same to the processes
         * it started (a server's start script waits for the server's JVM and does not pass the
         * signal on).
         */
        @Override
        public void close() {
            process.descendants().forEach(ProcessHandle::destroy);
            process.destroy();
            try {
                if (!process.waitFor(10, TimeUnit.SECONDS)) {
                    process.descendants().forEach(ProcessHandle::destroyForcibly);
                    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }

    private static int run(ProcessBuilder builder, Duration timeout, String what) {
        try {
            Process process = builder.start();
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                throw new IllegalStateException(what + " took longer than " + timeout);
            }
            return process.exitValue();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + what, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during " + what, e);
        }
    }

    private static void copyFresh(Path from, Path to) {
        try {
            if (Files.exists(to)) {
                try (Stream<Path> old = Files.walk(to)) {
                    for (Path path : old.sorted((a, b) -> b.getNameCount() - a.getNameCount()).toList()) {
                        Files.delete(path);
                    }
                }
            }
            copyInto(from, to);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot copy " + from + " to " + to, e);
        }
    }

    /** Copies the files under {@code from} into {@code to}, replacing any of the same path; build output aside. */
    private static void copyInto(Path from, Path to) {
        try {
            Files.walkFileTree(from, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path source, BasicFileAttributes attributes) throws IOException {
                    if (source.getFileName().toString().equals("target") && !source.equals(from)) {
                        return FileVisitResult.SKIP_SUBTREE;
                    }
                    Files.createDirectories(to.resolve(from.relativize(source).toString()));
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path source, BasicFileAttributes attributes) throws IOException {
                    Files.copy(source, to.resolve(from.relativize(source).toString()), StandardCopyOption.REPLACE_EXISTING);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException("cannot copy " + from + " to " + to, e);
        }
    }

    static int freePort() {
        return FreePort.loopback();
    }

    private static String read(Path file) {
        try {
            return Files.isRegularFile(file) ? Files.readString(file, StandardCharsets.UTF_8) : "(no output)";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void pause(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for a consumer service", e);
        }
    }

    /** The projects on the runtimes docs/runtimes.md names, in the order their builds start. */
    static List<String> supported() {
        return List.of("jersey-3.1", "resteasy-6.2", "jersey-4.0", "resteasy-7.0", "tomcat-10.1");
    }

    /** A project on a container whose requests do not tell the client address: it must not start. */
    static final String UNSUPPORTED = "jersey-4.0-jdk-http";

    /** Every project. */
    static List<String> names() {
        return List.of("jersey-3.1", "resteasy-6.2", "jersey-4.0", "resteasy-7.0", "tomcat-10.1", UNSUPPORTED);
    }
}
