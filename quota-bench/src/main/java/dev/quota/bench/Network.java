package dev.quota.bench;

import dev.quota.bench.net.DelayProxy;
import dev.quota.testkit.RespClient;
import java.net.URI;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Set;
import org.HdrHistogram.Histogram;
import org.jspecify.annotations.Nullable;

/**
 * How the bench's Redis clients reach redis-server during one pass over the scenarios: directly on
 * loopback (round trip +0), or through a {@link DelayProxy} that adds {@code rtt} to every round
 * trip, as if Redis were one network hop away. Every contender's client connects to
 * {@link #clientUri()}; the bench's own admin connection (FLUSHALL, INFO) stays direct.
 *
 * <p>The proxy runs in the bench's JVM but stands for the network, so {@link #clientCpuNanos()} is
 * the process's CPU without the proxy's threads.
 */
final class Network implements AutoCloseable {

    private static final int PINGS = 1_000;

    private final RedisUnderTest redis;
    private final Duration rtt;
    private final @Nullable DelayProxy proxy;
    private final String measured;
    private long addedNanos;

    private Network(RedisUnderTest redis, Duration rtt) {
        this.redis = redis;
        this.rtt = rtt;
        this.proxy = rtt.isZero() ? null : DelayProxy.start(host(redis.uri()), port(redis.uri()), rtt);
        this.measured = probe();
    }

    /** Opens the network for {@code rtt}: direct when zero, else a proxy on a free loopback port. */
    static Network open(RedisUnderTest redis, Duration rtt) {
        return new Network(redis, rtt);
    }

    /** The round trip added to loopback. */
    Duration rtt() {
        return rtt;
    }

    /** Where the contenders' clients connect. */
    String clientUri() {
        return proxy == null ? redis.uri() : proxy.uri();
    }

    /** {@code +0 ms} or {@code +0.5 ms}: the label of results measured through this network. */
    static String label(Duration rtt) {
        return "+" + millis(rtt) + " ms";
    }

    /** The bench JVM's CPU nanoseconds so far, every thread but the proxy's. */
    long clientCpuNanos() {
        long all = RedisUnderTest.jvmCpuNanos();
        long proxyCpu = proxyCpuNanos();
        return proxyCpu > 0 ? all - proxyCpu : all;
    }

    /** The proxy's threads, left out of what the client allocates; none without a proxy. */
    Set<Long> proxyThreadIds() {
        return proxy == null ? Set.of() : proxy.threadIds();
    }

    /** The proxy's CPU nanoseconds so far; 0 without a proxy. */
    long proxyCpuNanos() {
        return proxy == null ? 0 : Math.max(0, proxy.cpuNanos());
    }

    /**
     * One line for the report: the configured delay, the PING round trip measured through it when
     * it opened, and (with a proxy) how late it wrote and how much CPU it used so far.
     */
    String describe() {
        if (proxy == null) {
            return label(rtt) + ": clients connect to redis-server directly on loopback; " + measured;
        }
        Histogram late = proxy.lateness();
        return String.format(Locale.ROOT, "%s: clients connect through the delay proxy (%s ms each way, its threads"
                        + " %s); %s; the proxy wrote %,d chunks, p50 %.1f µs / p99 %.1f µs after they were due, using"
                        + " %.1f s of CPU (left out of the client CPU columns)", label(rtt), millis(rtt.dividedBy(2)),
                proxy.prioritized() ? "at nice -10" : "at normal priority: no CAP_SYS_NICE", measured, late.getTotalCount(),
                late.getValueAtPercentile(50) / 1e3, late.getValueAtPercentile(99) / 1e3, proxyCpuNanos() / 1e9);
    }

    /**
     * The median PING round trip through this network, less the median direct on loopback, in
     * nanoseconds: what the network adds to each round trip, as measured when it opened (0 direct).
     */
    long addedRoundTripNanos() {
        return addedNanos;
    }

    /** The median of {@code count} PING round trips on {@code client}, in nanoseconds. */
    static long pingMedian(RespClient client, int count) {
        long[] took = new long[count];
        for (int i = 0; i < count; i++) {
            took[i] = ping(client);
        }
        Arrays.sort(took);
        return took[count / 2];
    }

    /** One PING's round trip on {@code client}, in nanoseconds. */
    static long ping(RespClient client) {
        long start = System.nanoTime();
        client.command("PING");
        return System.nanoTime() - start;
    }

    /** PING round trips, direct and through this network: the median of each, after a warm-up. */
    private String probe() {
        URI direct = URI.create(redis.uri());
        URI through = URI.create(clientUri());
        try (RespClient a = RespClient.connect(direct.getHost(), direct.getPort());
             RespClient b = RespClient.connect(through.getHost(), through.getPort())) {
            pingMedian(a, PINGS / 10);
            pingMedian(b, PINGS / 10);
            long directMedian = pingMedian(a, PINGS);
            long throughMedian = pingMedian(b, PINGS);
            addedNanos = proxy == null ? 0 : throughMedian - directMedian;
            return proxy == null
                    ? String.format(Locale.ROOT, "PING round trip median %.1f µs", directMedian / 1e3)
                    : String.format(Locale.ROOT, "PING round trip median %.1f µs through it, %.1f µs direct (+%.1f µs)",
                    throughMedian / 1e3, directMedian / 1e3, (throughMedian - directMedian) / 1e3);
        }
    }

    private static String millis(Duration d) {
        return java.math.BigDecimal.valueOf(d.toNanos(), 6).stripTrailingZeros().toPlainString();
    }

    private static String host(String uri) {
        return URI.create(uri).getHost();
    }

    private static int port(String uri) {
        return URI.create(uri).getPort();
    }

    @Override
    public void close() {
        if (proxy != null) {
            proxy.close();
        }
    }
}
