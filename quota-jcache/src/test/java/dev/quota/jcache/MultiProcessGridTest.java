package dev.quota.jcache;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.testkit.BusyCores;
import dev.quota.testkit.ChildJvm;
import dev.quota.testkit.FreePort;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
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
 * admit exactly the customer's capacity, less what leased batches of the hot key still hold (never
 * more), and the grid makes every decision.
 */
@ExtendWith(BusyCores.class)
class MultiProcessGridTest {

    private static final int PROCESSES = 3;
    private static final int THREADS = 4;
    private static final int PER_THREAD = 25;
    /** How long a member may take to join the grid or to decide, on a busy machine. */
    private static final Duration MEMBER_WAIT = Duration.ofMinutes(3);
    private static final Pattern RESULT = Pattern.compile(
            "RESULT admitted=(\\d+) rejected=(\\d+) fallback=(\\d+) held=(\\d+)");

    @TempDir
    Path logs;

    private final List<ChildJvm> processes = new ArrayList<>();

    @AfterEach
    void killProcesses() throws InterruptedException {
        for (ChildJvm process : processes) {
            process.close();
        }
    }

    @Test
    void threeProcesses_300ConcurrentDecisionsForOneCustomer_admitExactlyCapacity_noneByFallback() throws Exception {
        String cluster = "quota-processes-" + UUID.randomUUID();
        List<Integer> ports = new ArrayList<>();
        for (int i = 0; i < PROCESSES; i++) {
            ports.add(FreePort.loopback());
        }
        String allPorts = ports.stream().map(String::valueOf).collect(Collectors.joining(","));
        String customer = "fleet-" + UUID.randomUUID();
        long started = System.nanoTime();

        for (int i = 0; i < PROCESSES; i++) {
            processes.add(ChildJvm.start(GridMemberProcess.class, "256m", logs.resolve("member-" + i + ".log"),
                    cluster, String.valueOf(ports.get(i)), allPorts, customer, String.valueOf(THREADS),
                    String.valueOf(PER_THREAD)));
        }
        for (ChildJvm process : processes) {
            process.awaitLine("READY", MEMBER_WAIT);
        }
        long formed = System.nanoTime();
        // every process is in the grid and waiting: release them together
        for (ChildJvm process : processes) {
            process.send("GO");
        }
        List<int[]> results = new ArrayList<>();
        for (int i = 0; i < PROCESSES; i++) {
            Matcher result = RESULT.matcher(processes.get(i).awaitLine("RESULT", MEMBER_WAIT));
            assertThat(result.matches()).isTrue();
            results.add(new int[] {Integer.parseInt(result.group(1)), Integer.parseInt(result.group(2)),
                    Integer.parseInt(result.group(3)), Integer.parseInt(result.group(4))});
        }
        long decided = System.nanoTime();
        for (ChildJvm process : processes) {
            process.closeInput();
        }

        int admitted = results.stream().mapToInt(r -> r[0]).sum();
        int rejected = results.stream().mapToInt(r -> r[1]).sum();
        int fallback = results.stream().mapToInt(r -> r[2]).sum();
        int held = results.stream().mapToInt(r -> r[3]).sum();
        System.out.printf("3 processes: grid formed in %d ms, %d decisions in %d ms; admitted per process %s,"
                        + " sum %d, rejected %d, not by the grid %d%n",
                (formed - started) / 1_000_000, PROCESSES * THREADS * PER_THREAD, (decided - formed) / 1_000_000,
                results.stream().map(r -> String.valueOf(r[0])).collect(Collectors.joining("/")), admitted, rejected,
                fallback);
        assertThat(fallback).as("decisions not made by the grid").isZero();
        assertThat(admitted).as("never above the capacity").isLessThanOrEqualTo(200);
        // short of it only by what leased batches of the hot key still hold (given back at their deadline)
        assertThat(admitted + held).isEqualTo(200);
        assertThat(rejected).isEqualTo(PROCESSES * THREADS * PER_THREAD - admitted);
    }
}
