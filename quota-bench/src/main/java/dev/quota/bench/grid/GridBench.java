package dev.quota.bench.grid;

import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The grid scenario: three JVMs, each an embedded Hazelcast member of one grid and an instance
 * deciding on it, run the same load at once: one busy customer (every thread of every member on one
 * customer), then many customers (drawn uniformly), for the JCache store in both modes and for
 * Bucket4j's own JCache proxy manager, one limit and a plan with a rule. Each limiter runs in two
 * slices, in order and then in reverse, so drift falls on all alike. Prints one markdown table:
 * decisions per second over all members, and the p50 and p99 of a decision's latency over every
 * decision measured.
 *
 * <pre>
 * java -cp quota-bench/target/quota-bench.jar dev.quota.bench.grid.GridBench [--quick] [--threads N]
 *      [--customers N] [--member-heap 512m]
 * </pre>
 */
public final class GridBench {

    private static final int MEMBERS = 3;
    private static final Pattern DONE = Pattern.compile("DONE decisions=(\\d+) admitted=(\\d+) failed=(\\d+)");
    private static final List<String> CONTENDERS = List.of("quota-service", "quota-cas", "quota-cas-unmerged",
            "quota-processor", "bucket4j-jcache");

    private GridBench() {
    }

    /** One run's figures over all members. */
    record Row(String scenario, String shape, String contender, double perSecond, long p50Micros, long p99Micros,
               long decisions, long admitted, long failed) {
    }

    public static void main(String[] args) throws Exception {
        boolean quick = false;
        int threads = 4;
        int customers = 10_000;
        String heap = "512m";
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--quick" -> quick = true;
                case "--threads" -> threads = Integer.parseInt(args[++i]);
                case "--customers" -> customers = Integer.parseInt(args[++i]);
                case "--member-heap" -> heap = args[++i];
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + " (use --quick, --threads N, --customers N, --member-heap SIZE)");
            }
        }
        long warmup = quick ? 1_000 : 3_000;
        long measured = quick ? 3_000 : 10_000;
        PrintStream log = System.out;
        Path dir = Files.createTempDirectory("grid-bench");
        List<Process> members = start(heap, dir);
        try {
            List<BufferedReader> outputs = new ArrayList<>();
            for (Process member : members) {
                BufferedReader out = new BufferedReader(new InputStreamReader(member.getInputStream(),
                        StandardCharsets.UTF_8));
                expect(out, "READY");
                outputs.add(out);
            }
            log.printf("grid of %d members up (JVMs with -Xmx%s, G1); %d threads each; each limiter in two slices"
                    + " (in order, then reversed) of %.0f s measured after %.0f s warm-up%n", MEMBERS, heap, threads,
                    measured / 1e3, warmup / 1e3);
            List<Row> rows = new ArrayList<>();
            for (int scenario : new int[] {1, customers}) {
                for (GridContender.Shape shape : GridContender.Shape.values()) {
                    // each limiter in two slices, in order and then in reverse, so drift falls on all alike
                    Map<String, Slice> slices = new LinkedHashMap<>();
                    List<String> order = new ArrayList<>(CONTENDERS);
                    for (int pass = 0; pass < 2; pass++) {
                        for (String contender : order) {
                            Slice slice = run(members, outputs, dir, contender, shape, scenario, threads, warmup,
                                    measured);
                            slices.merge(contender, slice, Slice::plus);
                        }
                        Collections.reverse(order);
                    }
                    for (String contender : CONTENDERS) {
                        Row row = slices.get(contender).row(scenario == 1 ? "one busy customer"
                                : String.format(Locale.ROOT, "%,d customers", scenario), shape.label, contender,
                                2 * measured);
                        log.println(row);
                        rows.add(row);
                    }
                }
            }
            log.println();
            log.print(table(rows));
        } finally {
            for (Process member : members) {
                member.getOutputStream().close();
            }
            for (Process member : members) {
                if (!member.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
                    member.destroyForcibly();
                }
            }
        }
        System.exit(0);
    }

    private static List<Process> start(String heap, Path dir) throws IOException {
        List<Integer> ports = new ArrayList<>();
        for (int i = 0; i < MEMBERS; i++) {
            ports.add(freePort());
        }
        String all = String.join(",", ports.stream().map(String::valueOf).toList());
        String cluster = "grid-bench-" + UUID.randomUUID();
        List<Process> members = new ArrayList<>();
        for (int i = 0; i < MEMBERS; i++) {
            members.add(new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx" + heap, "-XX:+UseG1GC", "-cp", System.getProperty("java.class.path"),
                    GridMember.class.getName(), cluster, String.valueOf(ports.get(i)), all)
                    .redirectError(dir.resolve("member-" + i + ".log").toFile())
                    .start());
        }
        return members;
    }

    private static Slice run(List<Process> members, List<BufferedReader> outputs, Path dir, String contender,
                           GridContender.Shape shape, int customers, int threads, long warmup, long measured)
            throws IOException {
        List<Path> files = new ArrayList<>();
        for (int i = 0; i < members.size(); i++) {
            Path file = dir.resolve(contender + "-" + shape + "-" + customers + "-" + i + ".lat");
            files.add(file);
            OutputStream in = members.get(i).getOutputStream();
            in.write(String.join(" ", "RUN", contender, shape.name(), String.valueOf(customers),
                    String.valueOf(threads), String.valueOf(warmup), String.valueOf(measured), file.toString())
                    .concat("\n").getBytes(StandardCharsets.UTF_8));
            in.flush();
        }
        long decisions = 0;
        long admitted = 0;
        long failed = 0;
        for (BufferedReader out : outputs) {
            Matcher done = DONE.matcher(expect(out, "DONE"));
            if (!done.matches()) {
                throw new IllegalStateException("member answered " + done);
            }
            decisions += Long.parseLong(done.group(1));
            admitted += Long.parseLong(done.group(2));
            failed += Long.parseLong(done.group(3));
        }
        return new Slice(decisions, admitted, failed, read(files, decisions));
    }

    /** What the members measured in one or more runs of one limiter: counts, and every latency. */
    record Slice(long decisions, long admitted, long failed, long[] latencies) {

        Slice plus(Slice other) {
            long[] both = Arrays.copyOf(latencies, latencies.length + other.latencies.length);
            System.arraycopy(other.latencies, 0, both, latencies.length, other.latencies.length);
            return new Slice(decisions + other.decisions, admitted + other.admitted, failed + other.failed, both);
        }

        Row row(String scenario, String shape, String contender, long measuredMillis) {
            long[] sorted = latencies.clone();
            Arrays.sort(sorted);
            return new Row(scenario, shape, contender, decisions / (measuredMillis / 1e3),
                    percentile(sorted, 0.50) / 1_000, percentile(sorted, 0.99) / 1_000, decisions, admitted, failed);
        }
    }

    /** The markdown table of every run. */
    static String table(List<Row> rows) {
        StringBuilder out = new StringBuilder();
        out.append("| scenario | decision | limiter | decisions/s | p50 µs | p99 µs | admitted | failed |\n");
        out.append("|---|---|---|---:|---:|---:|---:|---:|\n");
        for (Row row : rows) {
            out.append(String.format(Locale.ROOT, "| %s | %s | %s | %,.0f | %,d | %,d | %,d of %,d | %d |%n",
                    row.scenario(), row.shape(), row.contender(), row.perSecond(), row.p50Micros(), row.p99Micros(),
                    row.admitted(), row.decisions(), row.failed()));
        }
        return out.toString();
    }

    /** The {@code p} quantile of sorted {@code values} (nearest rank); 0 when there are none. */
    static long percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        int rank = (int) Math.ceil(p * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    private static long[] read(List<Path> files, long count) throws IOException {
        long[] all = new long[Math.toIntExact(count)];
        int n = 0;
        for (Path file : files) {
            try (DataInputStream in = new DataInputStream(new java.io.BufferedInputStream(Files.newInputStream(file)))) {
                long size = Files.size(file) / Long.BYTES;
                for (long i = 0; i < size; i++) {
                    all[n++] = in.readLong();
                }
            }
            Files.delete(file);
        }
        return n == all.length ? all : Arrays.copyOf(all, n);
    }

    /** The next line starting with {@code prefix}; member output before it (Hazelcast's banner) is skipped. */
    private static String expect(BufferedReader out, String prefix) throws IOException {
        for (String line = out.readLine(); line != null; line = out.readLine()) {
            if (line.startsWith(prefix)) {
                return line;
            }
        }
        throw new IllegalStateException("a grid member ended before it printed " + prefix
                + " (see its log in the bench's temporary directory)");
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
