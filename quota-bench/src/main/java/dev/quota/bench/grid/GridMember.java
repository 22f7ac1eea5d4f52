package dev.quota.bench.grid;

import com.hazelcast.cache.impl.HazelcastServerCachingProvider;
import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import dev.quota.jcache.JCacheStore;
import java.io.BufferedReader;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.cache.Cache;
import javax.cache.CacheManager;

/**
 * One member of the bench grid in its own JVM, and an instance deciding on it: an embedded Hazelcast
 * member (loopback TCP-IP join, otherwise Hazelcast's defaults) that runs the loads {@link GridBench}
 * sends.
 *
 * <p>Arguments: cluster name, this member's port, every member's port (comma-separated). Prints
 * {@code READY} once it sees every member. Then reads commands on stdin, one a line:
 * {@code RUN <contender> <shape> <customers> <threads> <warm-up ms> <measured ms> <latency file>}
 * answers {@code DONE decisions=D admitted=A failed=F} after writing each measured decision's
 * latency (nanoseconds, a long each) to the file; end of input stops the member.
 */
public final class GridMember {

    private GridMember() {
    }

    public static void main(String[] args) throws Exception {
        String[] ports = args[2].split(",");
        HazelcastInstance member = Hazelcast.newHazelcastInstance(config(args[0], Integer.parseInt(args[1]), ports));
        try {
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
            while (member.getCluster().getMembers().size() < ports.length) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("member on " + args[1] + " sees "
                            + member.getCluster().getMembers().size() + " of " + ports.length + " members");
                }
                Thread.sleep(50); // waiting for the other JVMs to join, not for bucket time
            }
            CacheManager manager = new HazelcastServerCachingProvider(member).getCacheManager();
            Map<String, GridContender> contenders = new HashMap<>();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            System.out.println("READY");
            System.out.flush();
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                String[] run = line.split(" ");
                if (!run[0].equals("RUN")) {
                    throw new IllegalArgumentException("unknown command " + line);
                }
                GridContender.Shape shape = GridContender.Shape.valueOf(run[2]);
                // each contender and shape its own cache: no run starts on another's entries
                GridContender contender = contenders.computeIfAbsent(run[1] + " " + shape,
                        k -> GridContender.of(run[1], shape, cache(manager, run[1] + "-" + shape)));
                System.out.println(load(contender, Integer.parseInt(run[3]), Integer.parseInt(run[4]),
                        Long.parseLong(run[5]), Long.parseLong(run[6]), Path.of(run[7])));
                System.out.flush();
            }
        } finally {
            member.getLifecycleService().terminate();
        }
    }

    /**
     * {@code threads} threads deciding back to back, for customers drawn uniformly from
     * {@code customers} (1: one busy customer), for the warm-up and then the measured time.
     */
    private static String load(GridContender contender, int customers, int threads, long warmupMillis,
                               long measuredMillis, Path latencies) throws InterruptedException, IOException {
        long start = System.nanoTime();
        long measureFrom = start + TimeUnit.MILLISECONDS.toNanos(warmupMillis);
        long end = measureFrom + TimeUnit.MILLISECONDS.toNanos(measuredMillis);
        AtomicLong admitted = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        List<long[]> samples = new ArrayList<>();
        List<Thread> workers = new ArrayList<>();
        int[] counts = new int[threads];
        for (int t = 0; t < threads; t++) {
            int id = t;
            long[] mine = new long[1 << 20];
            samples.add(mine);
            Thread worker = new Thread(() -> {
                SplittableRandom random = new SplittableRandom(System.nanoTime() ^ id);
                int n = 0;
                for (long now = System.nanoTime(); now < end; ) {
                    String customer = customers == 1 ? "busy" : "c" + random.nextInt(customers);
                    boolean ok;
                    try {
                        ok = contender.decide(customer);
                    } catch (RuntimeException e) {
                        ok = false;
                        if (now >= measureFrom) {
                            failed.incrementAndGet();
                        }
                    }
                    long done = System.nanoTime();
                    if (now >= measureFrom && n < mine.length) {
                        mine[n++] = done - now;
                        if (ok) {
                            admitted.incrementAndGet();
                        }
                    }
                    now = done;
                }
                counts[id] = n;
            }, "decider-" + t);
            workers.add(worker);
        }
        workers.forEach(Thread::start);
        for (Thread worker : workers) {
            worker.join();
        }
        long decisions = 0;
        try (OutputStream file = Files.newOutputStream(latencies);
             DataOutputStream out = new DataOutputStream(new java.io.BufferedOutputStream(file))) {
            for (int t = 0; t < threads; t++) {
                for (int i = 0; i < counts[t]; i++) {
                    out.writeLong(samples.get(t)[i]);
                }
                decisions += counts[t];
            }
        }
        return "DONE decisions=" + decisions + " admitted=" + admitted.get() + " failed=" + failed.get();
    }

    private static Cache<String, byte[]> cache(CacheManager manager, String name) {
        return JCacheStore.cache(manager, name);
    }

    private static Config config(String clusterName, int port, String[] ports) {
        Config config = new Config();
        config.setClusterName(clusterName);
        config.setProperty("hazelcast.logging.type", "none");
        config.setProperty("hazelcast.phone.home.enabled", "false");
        config.setProperty("hazelcast.socket.bind.any", "false");
        NetworkConfig network = config.getNetworkConfig();
        network.setPort(port).setPortAutoIncrement(false);
        network.getInterfaces().setEnabled(true).addInterface("127.0.0.1");
        JoinConfig join = network.getJoin();
        join.getMulticastConfig().setEnabled(false);
        join.getAutoDetectionConfig().setEnabled(false);
        join.getTcpIpConfig().setEnabled(true);
        for (String p : ports) {
            join.getTcpIpConfig().addMember("127.0.0.1:" + p);
        }
        return config;
    }
}
