package dev.quota.bench;

import dev.quota.bench.http.HttpBench;
import dev.quota.bench.http.HttpConnection;
import dev.quota.bench.http.LoadGenerator;
import dev.quota.bench.http.TransfersEndpoint;
import dev.quota.core.QuotaService;
import dev.quota.testkit.RespClient;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.glassfish.grizzly.http.server.HttpServer;
import org.jspecify.annotations.Nullable;

/**
 * 7. One request at a time behind a hop: what a request costs when Redis is a network hop away,
 * in round trips of that hop. The HTTP servers of scenario 4 run twice, one pair whose Redis
 * clients connect directly on loopback and one pair whose clients go through a {@link Network}
 * adding {@code --hop-rtt} (4.5 ms by default) to every round trip. One keep-alive connection per
 * server sends, one request at a time and alternating between the two sides, a GET of the one-limit
 * accounts route and a small JSON transfer POST sent with its headers (the demo's transfer). Every
 * service runs the one transfer config, as a fleet's instances do: a customer's GETs and transfers
 * meet on its plan's key, and each instance finds there a state another instance wrote.
 *
 * <p>After {@link #WARMUP} untimed requests of each kind on each server, {@code --hop-rounds}
 * rounds of {@link #PER_ROUND}: a round's cost is the median behind the hop less the median direct;
 * the result is the median over the rounds, divided by the hop's added round trip (PINGs through
 * the proxy less PINGs direct, one of each after every request pair, the median of all). A request
 * that took one script more than direct costs about 1 round trip; the target is at most 1.2.
 */
final class HopScenario {

    /** Requests of each kind per server in a round: the "medians of 15". */
    static final int PER_ROUND = 15;
    /** Untimed requests of each kind per server before the rounds: Jersey, the filter and the client compiled. */
    static final int WARMUP = 300;
    /** The most round trips a request may cost behind the hop beyond what it costs direct. */
    static final double TARGET_ROUND_TRIPS = 1.2;
    static final String GET = "GET /api/v1/accounts/{id}, the plan's limits";
    static final String TRANSFER = "POST /api/v1/transfers/{id}, a small JSON body sent with its headers";
    /** Customers the direct side uses; the hop side uses as many others, so no bucket is on both. */
    private static final int SIDE_CUSTOMERS = HttpBench.CUSTOMERS / 2;
    private static final int WORKERS = 4;

    /** One round's medians, in nanoseconds. */
    record Round(long direct, long hop) {

        /** What the hop added to this round's median. */
        long difference() {
            return hop - direct;
        }
    }

    /**
     * One request kind's rounds.
     *
     * @param request        what was sent
     * @param rounds         the medians of each round, direct and behind the hop
     * @param addedRttNanos  what the hop adds to one round trip (PING through it less PING direct)
     * @param commands       Redis commands the hop side's client wrote per request, by name
     * @param errors         responses other than 200 and failed requests, both sides
     */
    record Row(String request, List<Round> rounds, long addedRttNanos, Map<String, Double> commands, long errors) {

        /** The median over the rounds of the direct medians. */
        long direct() {
            return median(rounds.stream().mapToLong(Round::direct).toArray());
        }

        /** The median over the rounds of the medians behind the hop. */
        long hop() {
            return median(rounds.stream().mapToLong(Round::hop).toArray());
        }

        /** The median over the rounds of each round's difference: what the hop costs this request. */
        long difference() {
            return median(rounds.stream().mapToLong(Round::difference).toArray());
        }

        /** {@link #difference()} in round trips of the hop. */
        double roundTrips() {
            return difference() / (double) addedRttNanos;
        }

        /** The fewest round trips a round cost. */
        double fewestRoundTrips() {
            return rounds.stream().mapToLong(Round::difference).min().orElse(0) / (double) addedRttNanos;
        }

        /** The most round trips a round cost. */
        double mostRoundTrips() {
            return rounds.stream().mapToLong(Round::difference).max().orElse(0) / (double) addedRttNanos;
        }

        /** Redis commands per request, every name together. */
        double commandsPerRequest() {
            return commands.values().stream().mapToDouble(Double::doubleValue).sum();
        }
    }

    /**
     * What the scenario measured.
     *
     * @param configured the round trip the proxy was asked to add
     * @param network    the proxy as {@link Network#describe()} tells it, after the rounds
     * @param pingDirect the median PING direct during the rounds, nanoseconds
     * @param pingHop    the median PING through the proxy during the rounds, nanoseconds
     * @param rows       the GET, then the transfer
     */
    record Result(Duration configured, String network, long pingDirect, long pingHop, List<Row> rows) {

        /** What the hop adds to one round trip, as the rounds measured it. */
        long addedRttNanos() {
            return pingHop - pingDirect;
        }
    }

    private final Settings settings;
    private final RedisUnderTest redis;
    private final PrintStream log;

    HopScenario(Settings settings, RedisUnderTest redis, PrintStream log) {
        this.settings = settings;
        this.redis = redis;
        this.log = log;
    }

    /** Both sides' servers up, the warm-up, the rounds, the commands counted behind the hop. */
    Result run() {
        redis.flush();
        List<HttpServer> servers = new ArrayList<>();
        URI direct = URI.create(redis.uri());
        try (Network hop = Network.open(redis, settings.hopRtt());
             Instance directGet = connect(redis.uri());
             Instance hopGet = connect(hop.clientUri());
             Instance directTransfer = connect(redis.uri());
             Instance hopTransfer = connect(hop.clientUri());
             QuotaService directGetService = HttpBench.service(directGet.client(), transferConfig());
             QuotaService hopGetService = HttpBench.service(hopGet.client(), transferConfig());
             QuotaService directTransferService = HttpBench.service(directTransfer.client(), transferConfig());
             QuotaService hopTransferService = HttpBench.service(hopTransfer.client(), transferConfig());
             RespClient pingDirect = RespClient.connect(direct.getHost(), direct.getPort());
             RespClient pingHop = RespClient.connect(URI.create(hop.clientUri()).getHost(),
                     URI.create(hop.clientUri()).getPort())) {
            log.println("  " + hop.describe());
            Side get = new Side(GET, null, start(servers, directGetService, false), start(servers, hopGetService, false),
                    hopGet);
            Side transfer = new Side(TRANSFER, TransfersEndpoint.BODY, start(servers, directTransferService, true),
                    start(servers, hopTransferService, true), hopTransfer);
            try (get; transfer) {
                for (int i = 0; i < WARMUP; i++) {
                    get.pair(i, false);
                    transfer.pair(i, false);
                    Network.ping(pingDirect);
                    Network.ping(pingHop);
                }
                get.startCounting();
                transfer.startCounting();
                int requests = settings.hopRounds() * PER_ROUND;
                long[] pingsDirect = new long[requests];
                long[] pingsHop = new long[requests];
                for (int i = 0; i < requests; i++) {
                    get.pair(WARMUP + i, true);
                    transfer.pair(WARMUP + i, true);
                    pingsDirect[i] = Network.ping(pingDirect);
                    pingsHop[i] = Network.ping(pingHop);
                }
                long added = median(pingsHop) - median(pingsDirect);
                List<Row> rows = List.of(get.row(added), transfer.row(added));
                Result result = new Result(settings.hopRtt(), hop.describe(), median(pingsDirect), median(pingsHop),
                        rows);
                for (Row row : rows) {
                    log.printf(Locale.ROOT, "  %-70s direct %6.2f ms  hop %6.2f ms  %+6.2f ms  %.2f round trips of"
                                    + " %.2f ms  %.2f Redis commands %s  errors %d%n", row.request(), row.direct() / 1e6,
                            row.hop() / 1e6, row.difference() / 1e6, row.roundTrips(), row.addedRttNanos() / 1e6,
                            row.commandsPerRequest(), row.commands(), row.errors());
                }
                return result;
            }
        } finally {
            servers.forEach(HttpServer::shutdownNow);
        }
    }

    private Instance connect(String uri) {
        return Instance.connect(uri, settings.nettyThreads(), settings.poolSize());
    }

    private static dev.quota.core.QuotaConfig transferConfig() {
        return HttpBench.withCustomers(QuotaContender.transferConfig(HttpScenario.LAYERED_LIMITS));
    }

    private HttpServer start(List<HttpServer> servers, QuotaService service, boolean transfers) {
        int port = HttpScenario.freePort();
        HttpServer server = HttpBench.start(port, service, null, WORKERS, transfers, settings.arrivedBodyBytes());
        servers.add(server);
        return server;
    }

    /**
     * One request kind on both sides: a keep-alive connection to each server, the times of the
     * measured requests, the errors, and the hop side's command counter.
     */
    private static final class Side implements AutoCloseable {
        private final String request;
        private final @Nullable String body;
        private final String path;
        private final int directPort;
        private final int hopPort;
        private final Instance hopInstance;
        private HttpConnection direct;
        private HttpConnection hop;
        private final List<Long> directTimes = new ArrayList<>();
        private final List<Long> hopTimes = new ArrayList<>();
        private long errors;

        Side(String request, @Nullable String body, HttpServer direct, HttpServer hop, Instance hopInstance) {
            this.request = request;
            this.body = body;
            this.path = body == null ? "/api/v1/accounts/acc-" : "/api/v1/transfers/tx-";
            this.directPort = port(direct);
            this.hopPort = port(hop);
            this.hopInstance = hopInstance;
            this.direct = open(directPort);
            this.hop = open(hopPort);
        }

        /** Request {@code i} to both sides, the side that goes first alternating, so neither is always second. */
        void pair(int i, boolean measured) {
            if (i % 2 == 0) {
                send(i, false, measured);
                send(i, true, measured);
            } else {
                send(i, true, measured);
                send(i, false, measured);
            }
        }

        private void send(int i, boolean behindHop, boolean measured) {
            int customer = i % SIDE_CUSTOMERS + (behindHop ? SIDE_CUSTOMERS : 0);
            HttpConnection connection = behindHop ? hop : direct;
            long start = System.nanoTime();
            int status;
            try {
                status = connection.send(path + i, LoadGenerator.apiKey(customer), body);
            } catch (IOException e) {
                status = -1;
            }
            long took = System.nanoTime() - start;
            if (status == -1 || connection.closing()) {
                // the server ended keep-alive (or the request failed): the next request on a new connection
                connection.close();
                if (behindHop) {
                    hop = open(hopPort);
                } else {
                    direct = open(directPort);
                }
            }
            if (!measured) {
                return;
            }
            if (status != 200) {
                errors++;
            }
            (behindHop ? hopTimes : directTimes).add(took);
        }

        /** From here on the hop side's commands are this kind's measured requests'. */
        void startCounting() {
            settle(hopInstance.counter());
            hopInstance.counter().reset();
        }

        /** The rounds, once every lease given back after a response was written is counted. */
        Row row(long addedRttNanos) {
            settle(hopInstance.counter());
            List<Round> rounds = new ArrayList<>();
            for (int from = 0; from + PER_ROUND <= directTimes.size(); from += PER_ROUND) {
                rounds.add(new Round(median(slice(directTimes, from)), median(slice(hopTimes, from))));
            }
            Map<String, Double> commands = new TreeMap<>();
            double requests = hopTimes.size();
            hopInstance.counter().byName().forEach((name, count) -> commands.put(name, count / requests));
            return new Row(request, rounds, addedRttNanos, commands, errors);
        }

        private static long[] slice(List<Long> times, int from) {
            return times.subList(from, from + PER_ROUND).stream().mapToLong(Long::longValue).toArray();
        }

        /** Waits until the counter has not moved for 300 ms (at most 3 s): a lease goes back after its response. */
        private static void settle(CommandCounter counter) {
            long deadline = System.nanoTime() + 3_000_000_000L;
            long last = -1;
            while (System.nanoTime() < deadline) {
                long now = counter.commands();
                if (now == last) {
                    return;
                }
                last = now;
                try {
                    Thread.sleep(300);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while the lease returns were counted", e);
                }
            }
        }

        private static int port(HttpServer server) {
            return server.getListeners().iterator().next().getPort();
        }

        private static HttpConnection open(int port) {
            try {
                return new HttpConnection(port);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot connect to the bench server on port " + port, e);
            }
        }

        @Override
        public void close() {
            direct.close();
            hop.close();
        }
    }

    /** The median of {@code values}; of an even count, the mean of the two middle ones. */
    static long median(long[] values) {
        if (values.length == 0) {
            return 0;
        }
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        int mid = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    }
}
