package dev.quota.example.it;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One Payara Micro JVM. Its merged output is copied line by line to {@code <dir>/server.log} (the
 * pipe must be drained or the server blocks); the copy completes {@link #awaitReady} on Payara's
 * boot-complete line and {@link #awaitMembers} on its data grid record with enough members.
 */
final class PayaraMember implements AutoCloseable {

    /** Printed by Payara Micro after every deployment: "Payara Micro ... ready in 6,992 (ms)". */
    private static final Pattern READY = Pattern.compile("ready in ([0-9,.]+) \\(ms\\)");
    /** Payara's "Data Grid Status" record on every membership change. */
    private static final Pattern MEMBERS = Pattern.compile("DG Size: (\\d+)");
    private static final int TAIL_LINES = 80;

    final String name;
    final int httpPort;
    final int clusterPort;
    final Path dir;
    final Path log;
    private final CompletableFuture<Long> ready = new CompletableFuture<>();
    private final CompletableFuture<Integer> clustered = new CompletableFuture<>();
    private final Deque<String> tail = new ArrayDeque<>();
    private volatile int expectedMembers = 2;
    private Process process;
    private Thread pump;
    private long startNanos;
    private volatile long readyNanos;

    PayaraMember(String name, int httpPort, int clusterPort, Path dir) {
        this.name = name;
        this.httpPort = httpPort;
        this.clusterPort = clusterPort;
        this.dir = dir;
        this.log = dir.resolve("server.log");
    }

    void start(List<String> command) throws IOException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("command.txt"), String.join(" ", command) + "\n");
        startNanos = System.nanoTime();
        process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
        pump = new Thread(this::pump, "payara-" + name + "-output");
        pump.setDaemon(true);
        pump.start();
    }

    private void pump() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8));
             BufferedWriter out = Files.newBufferedWriter(log, StandardCharsets.UTF_8)) {
            String line;
            while ((line = in.readLine()) != null) {
                out.write(line);
                out.newLine();
                out.flush();
                synchronized (tail) {
                    tail.addLast(line);
                    if (tail.size() > TAIL_LINES) {
                        tail.removeFirst();
                    }
                }
                Matcher ready = READY.matcher(line);
                if (!this.ready.isDone() && ready.find()) {
                    readyNanos = System.nanoTime();
                    this.ready.complete(Long.parseLong(ready.group(1).replaceAll("[,.]", "")));
                }
                Matcher members = MEMBERS.matcher(line);
                if (members.find() && Integer.parseInt(members.group(1)) >= expectedMembers) {
                    clustered.complete(Integer.parseInt(members.group(1)));
                }
            }
        } catch (IOException e) {
            synchronized (tail) {
                tail.addLast("(copying the output failed: " + e + ")");
            }
        } finally {
            IllegalStateException ended = new IllegalStateException(name + ": the server's output ended (exit code "
                    + (process.isAlive() ? "none yet" : process.exitValue()) + ")");
            ready.completeExceptionally(ended);
            clustered.completeExceptionally(ended);
        }
    }

    /** Waits for the boot-complete line; fails with the log's tail when it does not come or the JVM ends. */
    void awaitReady(Duration timeout) {
        await(ready, timeout, "print its ready line");
    }

    /** Waits for Payara's data grid record naming {@code members} members. */
    void awaitMembers(int members, Duration timeout) {
        expectedMembers = members;
        await(clustered, timeout, "join a data grid of " + members);
    }

    private void await(CompletableFuture<?> signal, Duration timeout, String what) {
        try {
            signal.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new IllegalStateException(name + " did not " + what + " within " + timeout + "; " + describeTail(), e);
        } catch (ExecutionException e) {
            throw new IllegalStateException(name + " did not " + what + ": " + e.getCause().getMessage() + "; "
                    + describeTail(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** From launch to the ready line. */
    Duration startup() {
        return Duration.ofNanos(readyNanos - startNanos);
    }

    /** The last lines of the server's output, with the log's path. */
    String describeTail() {
        synchronized (tail) {
            return "last " + tail.size() + " lines of " + log + ":\n" + String.join("\n", tail);
        }
    }

    String logText() throws IOException {
        return Files.readString(log);
    }

    boolean alive() {
        return process != null && process.isAlive();
    }

    /**
     * SIGTERM (Payara's shutdown hook undeploys the application), SIGKILL after {@code grace}.
     *
     * @return how long the JVM took to end
     */
    Duration stop(Duration grace) {
        if (process == null || !process.isAlive()) {
            return Duration.ZERO;
        }
        long t0 = System.nanoTime();
        process.destroy();
        try {
            if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                process.waitFor(30, TimeUnit.SECONDS);
            }
            if (pump != null) {
                pump.join(5_000);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        return Duration.ofNanos(System.nanoTime() - t0);
    }

    /** Kills the JVM at once: for a test JVM that is going away. */
    void kill() {
        if (process != null && process.isAlive()) {
            process.destroyForcibly();
        }
    }

    @Override
    public void close() {
        stop(Duration.ofSeconds(60));
    }
}
