package dev.quota.demo;

import dev.quota.testkit.FreePort;
import dev.quota.testkit.Await;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The shaded demo jar as a separate JVM, as a user runs it: {@code java -jar target/quota-demo.jar}.
 * Its output goes to a log file, shown when it fails to come up.
 */
final class DemoProcess implements AutoCloseable {

    static final Duration START_TIMEOUT = Duration.ofSeconds(90);
    static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);

    private final Process process;
    private final Path log;
    private final URI baseUri;

    private DemoProcess(Process process, Path log, URI baseUri) {
        this.process = process;
        this.log = log;
        this.baseUri = baseUri;
    }

    /**
     * Starts {@code java -jar quota-demo.jar --port <free port> --management-port 0 <args>} and waits
     * until it answers HTTP.
     */
    static DemoProcess start(String name, String... args) throws IOException, InterruptedException {
        Path jar = Path.of(System.getProperty("demo.jar", "target/quota-demo.jar"));
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar + " is missing: mvn verify packages it before the *IT tests run");
        }
        String java = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        int port = freePort();
        List<String> command = new ArrayList<>(List.of(java, "-Xmx256m", "-XX:TieredStopAtLevel=1", "-jar",
                jar.toString(), "--port", Integer.toString(port), "--management-port", "0"));
        command.addAll(List.of(args));
        Path log = Files.createDirectories(Path.of("target", "it-logs")).resolve(name + ".log");
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        DemoProcess demo = new DemoProcess(process, log, URI.create("http://127.0.0.1:" + port + "/"));
        try {
            demo.awaitAnswering();
        } catch (RuntimeException | InterruptedException e) {
            demo.close();
            throw e;
        }
        return demo;
    }

    URI baseUri() {
        return baseUri;
    }

    Process process() {
        return process;
    }

    /** What the process printed so far. */
    String output() {
        try {
            return Files.readString(log, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Any HTTP answer counts: the demo is up. A demo that exits ends the wait at once. */
    private void awaitAnswering() throws InterruptedException {
        URI probe = baseUri.resolve("api/v1/no-such-path");
        Await.until(START_TIMEOUT, () -> {
            if (!process.isAlive()) {
                throw new IllegalStateException("demo exited with " + process.exitValue() + ":\n" + output());
            }
            try {
                Http.send(HttpRequest.newBuilder(probe).timeout(Duration.ofSeconds(2)).GET());
                return true;
            } catch (UncheckedIOException notYet) {
                return false; // not listening yet
            }
        }, () -> "the demo to answer on " + baseUri + ":\n" + output());
    }

    /** SIGTERM, as Ctrl-C or a process manager would send; SIGKILL if it has not exited in time. */
    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    private static int freePort() {
        return FreePort.loopback();
    }
}
