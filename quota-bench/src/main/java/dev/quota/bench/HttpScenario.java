package dev.quota.bench;

import dev.quota.bench.http.ContenderFilter;
import dev.quota.bench.http.HttpBench;
import dev.quota.bench.http.TransfersEndpoint;
import dev.quota.core.QuotaService;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.glassfish.grizzly.http.server.HttpServer;
import org.jspecify.annotations.Nullable;

/**
 * 4. HTTP end to end: the accounts route on Jersey + Grizzly in this JVM, without and with the
 * quota filter and with the Lua floor filter, then the same on a layered route (the transfer's five
 * buckets, against the layered Lua floor), under load from a separate process: first closed loop (peak throughput), then
 * paced at half the slowest server's peak (the latency the filter adds at a load every server
 * carries).
 */
final class HttpScenario {

    /** Per customer: 1,000 per second, far above what 1,000 customers share here: all admitted. */
    static final long CAPACITY = 1_000;
    static final String WITHOUT = "without filter";
    static final String WITH = "with QuotaFeature";
    static final String LUA = "with a Lua filter (a)";
    /** The layered route's servers are named as the accounts route's, with this after them. */
    static final String LAYERED = ", transfers";
    static final String LAYERED_LUA = "with a layered Lua filter (a)";
    /**
     * The layered route's limits: the transfer decision's five buckets, each generous enough that
     * 1,000 customers at the server's peak are all admitted (the throughput is the decision's cost).
     */
    static final TransferLimits LAYERED_LIMITS = new TransferLimits(100, 50, 50_000, 500_000, 100_000, 1_000_000,
            100_000_000, 100);

    private final Settings settings;
    private final RedisUnderTest redis;
    private final Network network;
    private final PrintStream log;
    private final Profiler profiler;

    HttpScenario(Settings settings, RedisUnderTest redis, Network network, PrintStream log, Profiler profiler) {
        this.settings = settings;
        this.redis = redis;
        this.network = network;
        this.log = log;
        this.profiler = profiler;
    }

    /**
     * One load run.
     *
     * @param rtt           the round trip the network added between the server and Redis
     * @param server        "without filter" or "with QuotaFeature"
     * @param load          "peak" (closed loop) or "half peak" (paced)
     * @param result        what the load generator measured
     * @param roundTrips    client round trips to Redis per request
     * @param serverCommands INFO commandstats calls per request
     * @param serverCpuMicros the server JVM's CPU per request (filter, Jersey, Grizzly, Redis client; not
     *                        the delay proxy's)
     * @param redisCpuMicros redis-server's CPU per request
     */
    record Row(Duration rtt, String server, String load, HttpBench.LoadResult result, double roundTrips,
               double serverCommands, double serverCpuMicros, double redisCpuMicros) {
    }

    /**
     * Peak (closed loop) without a filter, with {@code QuotaFeature}, and with the floor (a bare
     * filter over the Lua baseline), then all three paced at half the slowest one's peak, so none is
     * measured past its capacity (half the unfiltered peak can be more than a filtered server
     * carries, and then the run measures a growing queue, not the filter); each measured
     * twice, A B C then C B A, the two halves combined (throughput over the total time, percentiles
     * averaged), so drift on a shared machine falls on all alike.
     */
    List<Row> run() {
        redis.flush();
        List<Row> rows = new ArrayList<>();
        try (Instance instance = Instance.connect(network.clientUri(), settings.nettyThreads(), settings.poolSize());
             QuotaService service = HttpBench.service(instance.client(), CAPACITY);
             Contender lua = Kind.LUA.create(instance.client(), new LimitSpec(CAPACITY, Duration.ofSeconds(1)), "http");
             QuotaService layered = HttpBench.service(instance.client(),
                     HttpBench.withCustomers(QuotaContender.transferConfig(LAYERED_LIMITS)));
             Contender layeredLua = new LayeredLuaContender(instance.client(), LAYERED_LIMITS, "http-layered")) {
            Server[] servers = {new Server(WITHOUT, null, null, false), new Server(WITH, service, null, false),
                new Server(LUA, null, new ContenderFilter(lua, HttpBench.CUSTOMERS), false)};
            rows.addAll(route(servers, instance));
            // the same on the layered route: the plan, its day, the rule per customer and shared, the amount
            Server[] transfers = {new Server(WITHOUT + LAYERED, null, null, true),
                new Server(WITH + LAYERED, layered, null, true),
                new Server(LAYERED_LUA + LAYERED, null, new ContenderFilter(layeredLua, HttpBench.CUSTOMERS), true)};
            rows.addAll(route(transfers, instance));
        }
        return rows;
    }

    /** One route's servers: warmed up, at the peak, then paced at half the slowest one's peak. */
    private List<Row> route(Server[] servers, Instance instance) {
        List<Row> rows = new ArrayList<>();
        // untimed: every server's code paths compiled before anything is measured
        for (Server server : servers) {
            measure(server, "warm-up", instance, 0);
        }
        Row[] peak = abba("peak", servers, instance, 0);
        rows.addAll(List.of(peak));
        double half = Arrays.stream(peak).mapToDouble(r -> r.result().throughput()).min().orElseThrow() / 2;
        rows.addAll(List.of(abba("half peak", servers, instance, half)));
        return rows;
    }

    /** One server variant: the route alone, with the quota feature, or with the Lua floor filter. */
    private record Server(String label, @Nullable QuotaService service, @Nullable ContenderFilter filter,
                          boolean transfers) {
    }

    /** Each server measured twice, in order then in reverse (A B C C B A), halves combined. */
    private Row[] abba(String loadName, Server[] servers, Instance instance, double rate) {
        Row[] first = new Row[servers.length];
        for (int i = 0; i < servers.length; i++) {
            first[i] = measure(servers[i], loadName, instance, rate);
        }
        Row[] combined = new Row[servers.length];
        for (int i = servers.length - 1; i >= 0; i--) {
            combined[i] = combine(first[i], measure(servers[i], loadName, instance, rate));
        }
        return combined;
    }

    private static Row combine(Row a, Row b) {
        HttpBench.LoadResult x = a.result();
        HttpBench.LoadResult y = b.result();
        HttpBench.LoadResult sum = new HttpBench.LoadResult(x.requests() + y.requests(), x.ok() + y.ok(),
                x.rejected() + y.rejected(), x.errors() + y.errors(), x.elapsedNanos() + y.elapsedNanos(),
                (x.p50() + y.p50()) / 2, (x.p90() + y.p90()) / 2, (x.p99() + y.p99()) / 2, (x.p999() + y.p999()) / 2,
                Math.max(x.max(), y.max()));
        double requests = x.requests() + y.requests();
        return new Row(a.rtt(), a.server(), a.load(), sum,
                (a.roundTrips() * x.requests() + b.roundTrips() * y.requests()) / requests,
                (a.serverCommands() * x.requests() + b.serverCommands() * y.requests()) / requests,
                (a.serverCpuMicros() * x.requests() + b.serverCpuMicros() * y.requests()) / requests,
                (a.redisCpuMicros() * x.requests() + b.redisCpuMicros() * y.requests()) / requests);
    }

    private Row measure(Server variant, String loadName, Instance instance, double rate) {
        String label = variant.label();
        int port = freePort();
        HttpServer server = HttpBench.start(port, variant.service(), variant.filter(), settings.callers(),
                variant.transfers(), settings.arrivedBodyBytes());
        Profiler.Slice[] recording = new Profiler.Slice[1];
        try {
            double[] cpuAtStart = new double[2];
            HttpBench.LoadResult result = HttpBench.load(port, settings.callers(), settings.warmupNanos() / 1e9,
                    settings.measureNanos() / 2e9, rate, variant.transfers() ? TransfersEndpoint.BODY : null, () -> {
                        instance.counter().reset();
                        redis.resetStats();
                        cpuAtStart[0] = network.clientCpuNanos();
                        cpuAtStart[1] = redis.cpuSeconds();
                        if (!loadName.equals("warm-up")) {
                            recording[0] = profiler.start("4 " + Network.label(network.rtt()) + " " + label + " "
                                    + loadName);
                        }
                    });
            if (recording[0] != null) {
                recording[0].close();
                recording[0] = null;
            }
            // includes the load generator's exit, a few milliseconds, spread over thousands of requests
            double jvmCpu = network.clientCpuNanos() - cpuAtStart[0];
            double redisCpu = (redis.cpuSeconds() - cpuAtStart[1]) * 1e9;
            long trips = instance.counter().commands();
            Map<String, Long> stats = redis.commandStats();
            long commands = stats.values().stream().mapToLong(Long::longValue).sum();
            double requests = result.requests();
            Row row = new Row(network.rtt(), label, loadName, result, trips / requests, commands / requests,
                    jvmCpu / 1e3 / requests, redisCpu / 1e3 / requests);
            log.printf("  %-22s %-10s %8.0f req/s  p50 %7.1f us  p99 %8.1f us  %.2f rt/req  cpu %.0f+%.0f us/req"
                            + "  ok %d  429 %d  errors %d%n", label, loadName, result.throughput(), result.p50() / 1e3,
                    result.p99() / 1e3, row.roundTrips(), row.serverCpuMicros(), row.redisCpuMicros(), result.ok(),
                    result.rejected(), result.errors());
            return row;
        } finally {
            if (recording[0] != null) {
                recording[0].close();
            }
            server.shutdownNow();
        }
    }

    /** A free port on loopback for a bench server. */
    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port", e);
        }
    }
}
