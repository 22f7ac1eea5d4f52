package dev.quota.bench.http;

import dev.quota.core.Customer;
import dev.quota.core.FailurePolicy;
import dev.quota.core.Limit;
import dev.quota.core.Plan;
import dev.quota.core.QuotaConfig;
import dev.quota.core.QuotaService;
import dev.quota.core.Refill;
import dev.quota.core.config.ApiKeys;
import dev.quota.jaxrs.QuotaFeature;
import dev.quota.redis.RedisStore;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.glassfish.grizzly.http.server.HttpServer;
import org.glassfish.grizzly.http.server.NetworkListener;
import org.glassfish.grizzly.threadpool.ThreadPoolConfig;
import org.glassfish.jersey.grizzly2.httpserver.GrizzlyHttpServerFactory;
import org.glassfish.jersey.server.ResourceConfig;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RedissonClient;

/**
 * The HTTP scenario's server side: the accounts route on Jersey + Grizzly in this JVM, with or
 * without {@link QuotaFeature}, and the load from a {@link LoadGenerator} process.
 */
public final class HttpBench {

    /** Customers with an API key each; a request picks one at random. */
    public static final int CUSTOMERS = 1_000;

    private HttpBench() {
    }

    /** What one load generator run reported. */
    public record LoadResult(long requests, long ok, long rejected, long errors, long elapsedNanos, long p50,
                             long p90, long p99, long p999, long max) {

        /** Requests per second. */
        public double throughput() {
            return requests * 1e9 / elapsedNanos;
        }

        static LoadResult parse(String line) {
            Map<String, Long> v = new HashMap<>();
            for (String part : line.substring("RESULT ".length()).split(" ")) {
                int eq = part.indexOf('=');
                v.put(part.substring(0, eq), Long.parseLong(part.substring(eq + 1)));
            }
            return new LoadResult(v.get("requests"), v.get("ok"), v.get("rejected"), v.get("errors"),
                    v.get("elapsedNanos"), v.get("p50"), v.get("p90"), v.get("p99"), v.get("p999"), v.get("max"));
        }
    }

    /**
     * A quota config for the HTTP run: {@link #CUSTOMERS} customers on plan {@code bench} with
     * {@code capacity} per second, API keys {@link LoadGenerator#apiKey}.
     */
    public static QuotaConfig config(long capacity) {
        Plan plan = Plan.of("bench", List.of(new Limit("burst", capacity, Refill.greedy(capacity, Duration.ofSeconds(1)))),
                FailurePolicy.CLOSED);
        return withCustomers(Map.of("bench", plan), Map.of(), Map.of());
    }

    /**
     * {@code base}'s plans, rules and amount limits (plan {@code bench} among them) with the
     * {@link #CUSTOMERS} customers and their API keys: the layered route's config.
     */
    public static QuotaConfig withCustomers(QuotaConfig base) {
        return withCustomers(base.plans(), base.rules(), base.amounts());
    }

    private static QuotaConfig withCustomers(Map<String, Plan> plans, Map<String, dev.quota.core.Rule> rules,
                                             Map<String, dev.quota.core.AmountLimits> amounts) {
        QuotaConfig.Builder config = QuotaConfig.builder();
        plans.values().forEach(config::plan);
        rules.values().forEach(config::rule);
        amounts.values().forEach(config::amounts);
        for (int i = 0; i < CUSTOMERS; i++) {
            Customer c = Customer.of("http-customer-" + i, "bench");
            config.customer(c).apiKey(ApiKeys.sha256Hex(LoadGenerator.apiKey(i)), c.id());
        }
        return config.build();
    }

    /**
     * Starts the accounts server on a free port, with the quota feature of {@code service} or a
     * baseline {@code filter} when given, and {@code workers} Grizzly worker threads: the filter waits for Redis on the request's thread,
     * so the pool must hold as many threads as requests are in flight (Grizzly's default, two per
     * core, would cap the filtered server at 4 requests at a time here).
     */
    public static HttpServer start(int port, @Nullable QuotaService service, @Nullable ContenderFilter filter,
                                   int workers) {
        return start(port, service, filter, workers, false);
    }

    /** As {@link #start(int, QuotaService, ContenderFilter, int)}; {@code transfers}: the layered route instead. */
    public static HttpServer start(int port, @Nullable QuotaService service, @Nullable ContenderFilter filter,
                                   int workers, boolean transfers) {
        return start(port, service, filter, workers, transfers, -1);
    }

    /**
     * As {@link #start(int, QuotaService, ContenderFilter, int, boolean)}, with the feature's
     * {@code arrivedBodyBytes} ({@code QuotaFeature.Builder}); -1 keeps the feature's default.
     */
    public static HttpServer start(int port, @Nullable QuotaService service, @Nullable ContenderFilter filter,
                                   int workers, boolean transfers, int arrivedBodyBytes) {
        ResourceConfig app = transfers ? new ResourceConfig(TransfersEndpoint.class, TransfersEndpoint.Reader.class)
                : new ResourceConfig(AccountsEndpoint.class);
        if (service != null) {
            QuotaFeature.Builder feature = QuotaFeature.builder(service);
            if (arrivedBodyBytes >= 0) {
                feature.arrivedBodyBytes(arrivedBodyBytes);
            }
            app.register(feature.build());
        }
        if (filter != null) {
            app.register(filter);
        }
        HttpServer server = GrizzlyHttpServerFactory.createHttpServer(URI.create("http://127.0.0.1:" + port + "/"),
                app, false);
        for (NetworkListener listener : server.getListeners()) {
            listener.getTransport().setWorkerThreadPoolConfig(ThreadPoolConfig.defaultConfig()
                    .setPoolName("bench-http").setCorePoolSize(workers).setMaxPoolSize(workers));
        }
        try {
            server.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the HTTP server on port " + port, e);
        }
        return server;
    }

    /** A quota service on a Redis store over {@code client}. */
    public static QuotaService service(RedissonClient client, long capacity) {
        return service(client, config(capacity));
    }

    /** A quota service on a Redis store over {@code client}, with {@code config}. */
    public static QuotaService service(RedissonClient client, QuotaConfig config) {
        RedisStore store = RedisStore.builder().client(client).timeout(dev.quota.bench.Instance.TIMEOUT).build();
        return QuotaService.builder().store(store).config(config).build();
    }

    /**
     * Runs a {@link LoadGenerator} process against {@code port} and returns what it printed;
     * {@code afterWarmup} runs between its warm-up and its measured run.
     */
    public static LoadResult load(int port, int connections, double warmupSeconds, double durationSeconds,
                                  double rate, Runnable afterWarmup) {
        return load(port, connections, warmupSeconds, durationSeconds, rate, null, afterWarmup);
    }

    /** As above; with {@code body}, {@code POST /api/v1/transfers/<id>} of it instead of the accounts route. */
    public static LoadResult load(int port, int connections, double warmupSeconds, double durationSeconds,
                                  double rate, @Nullable String body, Runnable afterWarmup) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java, "-Xmx256m", "-XX:+UseSerialGC",
                "-cp", System.getProperty("java.class.path"), LoadGenerator.class.getName(),
                "--port", Integer.toString(port), "--connections", Integer.toString(connections),
                "--warmup", Double.toString(warmupSeconds), "--duration", Double.toString(durationSeconds),
                "--rate", Double.toString(rate), "--keys", Integer.toString(CUSTOMERS)));
        if (body != null) {
            command.addAll(List.of("--path", "/api/v1/transfers/", "--body", body));
        }
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String result = null;
            StringBuilder output = new StringBuilder();
            try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = out.readLine()) != null) {
                    if (line.equals("WARMED")) {
                        afterWarmup.run();
                        process.getOutputStream().write("GO\n".getBytes(StandardCharsets.US_ASCII));
                        process.getOutputStream().flush();
                    } else if (line.startsWith("RESULT ")) {
                        result = line;
                    } else {
                        output.append(line).append('\n');
                    }
                }
            }
            int exit = process.waitFor();
            if (exit != 0 || result == null) {
                throw new IllegalStateException("load generator exited with " + exit + ":\n" + output);
            }
            return LoadResult.parse(result);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the load generator", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the load generator ran", e);
        }
    }
}
