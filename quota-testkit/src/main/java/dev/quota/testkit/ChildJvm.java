package dev.quota.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A main class of the test classpath run in a JVM of its own, for claims about several processes
 * (an instance killed, a grid of separate members): its stdout read line by line, its stderr in a
 * log file that a failed wait shows.
 */
public final class ChildJvm implements AutoCloseable {

    private final Process process;
    private final Path log;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

    private ChildJvm(Process process, Path log) {
        this.process = process;
        this.log = log;
        Thread reader = new Thread(this::readLines, "child-jvm-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts {@code mainClass} with this JVM's java and classpath, the serial collector and
     * {@code maxHeap} (such as {@code 128m}), its stderr written to {@code log}.
     */
    public static ChildJvm start(Class<?> mainClass, String maxHeap, Path log, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx" + maxHeap, "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
                mainClass.getName()));
        command.addAll(List.of(args));
        return new ChildJvm(new ProcessBuilder(command).redirectError(log.toFile()).start(), log);
    }

    /**
     * The first line of stdout not read yet that starts with {@code prefix}, skipping the others.
     *
     * @throws AssertionError if none came within {@code timeout} or the process ended first,
     *                        with the last 40 lines of its log
     */
    public String awaitLine(String prefix, Duration timeout) throws InterruptedException, IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            String line = lines.poll(200, TimeUnit.MILLISECONDS);
            if (line != null && line.startsWith(prefix)) {
                return line;
            }
            if (line == null && !process.isAlive() && lines.isEmpty()) {
                break;
            }
        }
        List<String> all = Files.readAllLines(log);
        throw new AssertionError(log.getFileName() + ": no line starting with " + prefix + "; its log:\n"
                + String.join("\n", all.subList(Math.max(0, all.size() - 40), all.size())));
    }

    /** Writes one line to the process's stdin. */
    public void send(String line) throws IOException {
        OutputStream in = process.getOutputStream();
        in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        in.flush();
    }

    /** Closes the process's stdin: a child that blocks reading it ends. */
    public void closeInput() throws IOException {
        process.getOutputStream().close();
    }

    /** Whether the process is still running. */
    public boolean isAlive() {
        return process.isAlive();
    }

    /**
     * Kills the process at once, as a crash would (no shutdown hooks), and waits for it to end.
     *
     * @return whether it ended within 30 s
     */
    public boolean kill() throws InterruptedException {
        process.destroyForcibly();
        return process.waitFor(30, TimeUnit.SECONDS);
    }

    /** Kills the process if it still runs. */
    @Override
    public void close() throws InterruptedException {
        kill();
    }

    private void readLines() {
        try (BufferedReader out = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = out.readLine(); line != null; line = out.readLine()) {
                lines.add(line);
            }
        } catch (IOException e) {
            // the process was killed
        }
    }
}
