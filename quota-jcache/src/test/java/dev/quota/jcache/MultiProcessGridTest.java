package dev.quota.jcache;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.testkit.BusyCores;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three instances of a service, each its own JVM and its own Hazelcast member of one grid, with the
 * JCache store as shipped, deciding for the same customer at once on saturated cores: together they
 * admit exactly the customer's capacity, and the grid makes every decision.
 */
@ExtendWith(BusyCores.class)
class MultiProcessGridTest {

    private static final int PROCESSES = 3;
    private static final int THREADS = 4;
    private static final int PER_THREAD = 25;
    private static final Pattern RESULT = Pattern.compile("RESULT admitted=(\\d+) rejected=(\\d+) fallback=(\\d+)");

    @TempDir
    Path logs;

    private final List<Process> processes = new ArrayList<>();

    @AfterEach
    void killProcesses() throws InterruptedException {
        for (Process process : processes) {
            process.destroyForcibly();
        }
        for (Process process : processes) {
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void threeProcesses_300ConcurrentDecisionsForOneCustomer_admitExactlyCapacity_noneByFallback() throws Exception {
        String cluster = "quota-processes-" + UUID.randomUUID();
        List<Integer> ports = new ArrayList<>();
        for (int i = 0; i < PROCESSES; i++) {
            ports.add(freePort());
        }
        String allPorts = ports.stream().map(String::valueOf).collect(Collectors.joining(","));
        String customer = "fleet-" + UUID.randomUUID();
        long started = System.nanoTime();

        List<BlockingQueue<String>> outputs = new ArrayList<>();
        for (int i = 0; i < PROCESSES; i++) {
            Path log = logs.resolve("member-" + i + ".log");
            Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx256m", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
                    GridMemberProcess.class.getName(), cluster, String.valueOf(ports.get(i)), allPorts, customer,
                    String.valueOf(THREADS), String.valueOf(PER_THREAD))
                    .redirectError(log.toFile())
                    .start();
            processes.add(process);
            outputs.add(lines(process));
        }
        for (int i = 0; i < PROCESSES; i++) {
            awaitLine(outputs.get(i), "READY", i);
        }
        long formed = System.nanoTime();
        // every process is in the grid and waiting: release them together
        for (Process process : processes) {
            OutputStream in = process.getOutputStream();
            in.write("GO\n".getBytes(StandardCharsets.US_ASCII));
            in.flush();
        }
        List<int[]> results = new ArrayList<>();
        for (int i = 0; i < PROCESSES; i++) {
            Matcher result = RESULT.matcher(awaitLine(outputs.get(i), "RESULT", i));
            assertThat(result.matches()).isTrue();
            results.add(new int[] {Integer.parseInt(result.group(1)), Integer.parseInt(result.group(2)),
                    Integer.parseInt(result.group(3))});
        }
        long decided = System.nanoTime();
        for (Process process : processes) {
            process.getOutputStream().close();
        }

        int admitted = results.stream().mapToInt(r -> r[0]).sum();
        int rejected = results.stream().mapToInt(r -> r[1]).sum();
        int fallback = results.stream().mapToInt(r -> r[2]).sum();
        System.out.printf("3 processes: grid formed in %d ms, %d decisions in %d ms; admitted per process %s,"
                        + " sum %d, rejected %d, not by the grid %d%n",
                (formed - started) / 1_000_000, PROCESSES * THREADS * PER_THREAD, (decided - formed) / 1_000_000,
                results.stream().map(r -> String.valueOf(r[0])).collect(Collectors.joining("/")), admitted, rejected,
                fallback);
        assertThat(fallback).as("decisions not made by the grid").isZero();
        assertThat(admitted).isEqualTo(200);
        assertThat(rejected).isEqualTo(PROCESSES * THREADS * PER_THREAD - 200);
    }

    /** The process's stdout, line by line, read by a daemon thread so a wait on it can time out. */
    private static BlockingQueue<String> lines(Process process) {
        BlockingQueue<String> queue = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader out = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = out.readLine(); line != null; line = out.readLine()) {
                    queue.add(line);
                }
            } catch (IOException e) {
                // the process was killed
            }
        });
        reader.setDaemon(true);
        reader.start();
        return queue;
    }

    private String awaitLine(BlockingQueue<String> lines, String prefix, int member) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        while (System.nanoTime() < deadline) {
            String line = lines.poll(200, TimeUnit.MILLISECONDS);
            if (line != null && line.startsWith(prefix)) {
                return line;
            }
            if (line == null && !processes.get(member).isAlive() && lines.isEmpty()) {
                break;
            }
        }
        throw new AssertionError("member " + member + " printed no " + prefix + " line; its log:\n"
                + tail(logs.resolve("member-" + member + ".log")));
    }

    private static String tail(Path log) throws IOException {
        List<String> all = Files.readAllLines(log);
        return String.join("\n", all.subList(Math.max(0, all.size() - 40), all.size()));
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
