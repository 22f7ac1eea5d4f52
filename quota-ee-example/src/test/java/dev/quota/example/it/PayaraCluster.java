package dev.quota.example.it;

import dev.quota.testkit.FreePort;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * Two Payara Micro JVMs on 127.0.0.1, one Hazelcast cluster over TCP/IP between them (no
 * multicast), each with the example WAR at {@code /bank} and the same system properties. Started
 * one after the other (on two cores as fast as side by side, and less sensitive to load); ready
 * when both printed their ready line and both logged a data grid of two. Each member keeps its
 * command line and log under {@code target/cluster-runs/<name>-<time>/a|b}; the unpacked runtimes
 * are deleted when the cluster stops.
 */
final class PayaraCluster implements AutoCloseable {

    /**
     * Per member, measured on this 2-core machine: C1 only (C2's compiler threads compete with the
     * other member), serial GC and a 256 MB heap, about 350 MB resident each.
     */
    static final String JVM_FLAGS = "-Xmx256m -Xss512k -XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
            + " -XX:MaxMetaspaceSize=256m";
    static final Duration START_TIMEOUT = Duration.ofMinutes(4);
    static final Duration CLUSTER_TIMEOUT = Duration.ofSeconds(90);

    final PayaraMember a;
    final PayaraMember b;
    final Path runDir;
    final Map<String, String> timings = new LinkedHashMap<>();

    private PayaraCluster(PayaraMember a, PayaraMember b, Path runDir) {
        this.a = a;
        this.b = b;
        this.runDir = runDir;
    }

    /**
     * Starts both members with {@code settings} as system properties (MicroProfile Config sees
     * them) and waits until they are one cluster.
     *
     * @throws IllegalStateException with the tail of the log of a member that did not come up
     */
    static PayaraCluster start(String name, Map<String, String> settings) throws IOException {
        long t0 = System.nanoTime();
        Path payara = Path.of(required("payara.jar"));
        Path war = Path.of(required("example.war"));
        Path runDir = Path.of(required("cluster.runs")).resolve(name + "-"
                + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        Files.createDirectories(runDir);
        int[] ports = freePorts(4);
        PayaraMember a = new PayaraMember("a", ports[0], ports[2], runDir.resolve("a"));
        PayaraMember b = new PayaraMember("b", ports[1], ports[3], runDir.resolve("b"));
        PayaraCluster cluster = new PayaraCluster(a, b, runDir);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            a.kill();
            b.kill();
        }));

        Path properties = runDir.resolve("system.properties");
        StringBuilder text = new StringBuilder();
        settings.forEach((key, value) -> text.append(key).append('=').append(value.replace("\\", "\\\\")).append('\n'));
        Files.writeString(properties, text);
        // the HTTP listener on loopback only, before the server boots
        Path preBoot = runDir.resolve("preboot.asadmin");
        Files.writeString(preBoot, "set configs.config.server-config.network-config.network-listeners"
                + ".network-listener.http-listener.address=127.0.0.1\n");
        String members = "127.0.0.1:" + a.clusterPort + ",127.0.0.1:" + b.clusterPort;
        String clusterName = "quota-" + UUID.randomUUID().toString().substring(0, 8);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> flags = Arrays.stream(System.getProperty("payara.jvmFlags", JVM_FLAGS).trim().split("\\s+"))
                .filter(flag -> !flag.isBlank()).toList();
        try {
            for (PayaraMember member : List.of(a, b)) {
                Path tmp = Files.createDirectories(member.dir.resolve("tmp"));
                List<String> command = new ArrayList<>();
                command.add(java);
                command.addAll(flags);
                command.add("-Djava.io.tmpdir=" + tmp);
                command.add("-Dhazelcast.phone.home.enabled=false");
                // Hazelcast binds 0.0.0.0 despite --interfaces without this
                command.add("-Dhazelcast.socket.bind.any=false");
                command.addAll(List.of("-jar", payara.toString(),
                        "--deploy", war.toString(),
                        "--contextroot", "bank",
                        "--name", name + "-" + member.name,
                        "--port", String.valueOf(member.httpPort),
                        "--rootdir", member.dir.resolve("root").toString(),
                        "--clustername", clusterName,
                        "--clustermode", "tcpip:" + members,
                        "--startport", String.valueOf(member.clusterPort),
                        "--interfaces", "127.0.0.1",
                        // both members are 127.0.0.1: host-aware partitioning would keep no backups
                        "--nohostaware",
                        "--disablephonehome",
                        "--systemproperties", properties.toString(),
                        "--prebootcommandfile", preBoot.toString()));
                member.start(command);
                member.awaitReady(START_TIMEOUT);
                requireDeployed(member);
                cluster.timings.put("start." + member.name, member.startup().toMillis() + " ms");
            }
            a.awaitMembers(2, CLUSTER_TIMEOUT);
            b.awaitMembers(2, CLUSTER_TIMEOUT);
        } catch (RuntimeException | IOException e) {
            cluster.close();
            throw e;
        }
        cluster.timings.put("start.bothClustered", Duration.ofNanos(System.nanoTime() - t0).toMillis() + " ms");
        return cluster;
    }

    /** The ready line also follows a failed deployment: the log must say the WAR was deployed. */
    private static void requireDeployed(PayaraMember member) throws IOException {
        if (!member.logText().contains("quota-ee-example was successfully deployed")) {
            throw new IllegalStateException(member.name + " is up but the WAR was not deployed; "
                    + member.describeTail());
        }
    }

    /** {@code http://127.0.0.1:<port>/bank/api} of a member. */
    static String api(PayaraMember member) {
        return "http://127.0.0.1:" + member.httpPort + "/bank/api";
    }

    List<PayaraMember> members() {
        return List.of(a, b);
    }

    /** Stops B, then A, writes the timings, and deletes the unpacked runtimes (about 100 MB each). */
    @Override
    public void close() {
        timings.put("stop.b", b.stop(Duration.ofSeconds(60)).toMillis() + " ms");
        timings.put("stop.a", a.stop(Duration.ofSeconds(60)).toMillis() + " ms");
        try {
            StringBuilder text = new StringBuilder();
            timings.forEach((key, value) -> text.append(key).append(": ").append(value).append('\n'));
            Files.writeString(runDir.resolve("timings.txt"), text);
            for (PayaraMember member : List.of(a, b)) {
                deleteTree(member.dir.resolve("root"));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted((x, y) -> y.getNameCount() - x.getNameCount()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }

    private static int[] freePorts(int n) {
        int[] ports = new int[n];
        for (int i = 0; i < n; i++) {
            int port = FreePort.loopback();
            boolean taken = false;
            for (int j = 0; j < i; j++) {
                taken |= ports[j] == port;
            }
            if (taken) {
                i--; // drawn twice: draw again
            } else {
                ports[i] = port;
            }
        }
        return ports;
    }

    private static String required(String property) {
        String value = System.getProperty(property);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException("system property " + property + " is not set (the failsafe plugin sets it)");
        }
        return value;
    }
}
