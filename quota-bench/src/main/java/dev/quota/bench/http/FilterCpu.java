package dev.quota.bench.http;

import dev.quota.bench.Contender;
import dev.quota.bench.Outcome;
import dev.quota.core.QuotaService;
import dev.quota.core.store.InMemoryStore;
import dev.quota.jaxrs.QuotaFeature;
import java.io.ByteArrayOutputStream;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import org.glassfish.jersey.internal.MapPropertiesDelegate;
import org.glassfish.jersey.server.ApplicationHandler;
import org.glassfish.jersey.server.ContainerRequest;
import org.glassfish.jersey.server.ContainerResponse;
import org.glassfish.jersey.server.ResourceConfig;

/**
 * The HTTP filter's own CPU, without a network or a store round trip: the accounts route of
 * {@link HttpBench} in Jersey's in-memory handler, one thread, requests of {@link HttpBench#CUSTOMERS}
 * customers in turn, with no filter, with a bare filter over a limiter that admits without work
 * (what any filter costs: reading the key, a map lookup), and with {@code QuotaFeature} over the
 * in-JVM store. Prints the calling thread's CPU time and allocated bytes per request for each:
 * {@code QuotaFeature} minus the bare filter is what the quota filter does beyond a store's own
 * work (the in-JVM store's decision included). The peer address is left where the runtime adapter
 * would leave it (the in-memory handler has no connection). On a busy machine CPU time per thread
 * still holds better than throughput does.
 *
 * <pre>{@code java -cp quota-bench/target/quota-bench.jar dev.quota.bench.http.FilterCpu [requests]}</pre>
 */
public final class FilterCpu {

    private static final String PEER_PROPERTY = "dev.quota.jaxrs.peer";

    private FilterCpu() {
    }

    /**
     * Runs the three servers, each warmed up with as many requests as it is then measured with.
     *
     * @param args optional: requests measured per server (default 400,000)
     * @throws Exception if a request fails
     */
    public static void main(String[] args) throws Exception {
        int requests = args.length > 0 ? Integer.parseInt(args[0]) : 400_000;
        try (QuotaService service = QuotaService.builder().store(InMemoryStore.builder().build())
                .config(HttpBench.config(1_000_000_000L)).build()) {
            ResourceConfig none = new ResourceConfig(AccountsEndpoint.class);
            ResourceConfig bare = new ResourceConfig(AccountsEndpoint.class)
                    .register(new ContenderFilter(new Admitting(), HttpBench.CUSTOMERS));
            ResourceConfig quota = new ResourceConfig(AccountsEndpoint.class)
                    .register(QuotaFeature.builder(service).build());
            for (int round = 0; round < 2; round++) {
                // two rounds, the second reported: everything compiled by then
                boolean report = round == 1;
                measure("without filter", new ApplicationHandler(none), requests, report);
                measure("bare filter", new ApplicationHandler(bare), requests, report);
                measure("QuotaFeature", new ApplicationHandler(quota), requests, report);
            }
        }
    }

    private static void measure(String name, ApplicationHandler handler, int requests, boolean report)
            throws InterruptedException, ExecutionException {
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long self = Thread.currentThread().getId();
        for (int i = 0; i < requests; i++) {
            call(handler, i);
        }
        long cpu = threads.getCurrentThreadCpuTime();
        long bytes = threads.getThreadAllocatedBytes(self);
        for (int i = 0; i < requests; i++) {
            call(handler, i);
        }
        cpu = threads.getCurrentThreadCpuTime() - cpu;
        bytes = threads.getThreadAllocatedBytes(self) - bytes;
        if (report) {
            System.out.printf(Locale.ROOT, "%-15s %7.2f us CPU/request  %7.0f B/request%n", name,
                    cpu / 1e3 / requests, (double) bytes / requests);
        }
    }

    private static void call(ApplicationHandler handler, int i) throws InterruptedException, ExecutionException {
        int customer = i % HttpBench.CUSTOMERS;
        ContainerRequest request = new ContainerRequest(URI.create("http://127.0.0.1/"),
                URI.create("http://127.0.0.1/api/v1/accounts/" + customer), "GET", null, new MapPropertiesDelegate(),
                handler.getConfiguration());
        request.header("X-API-Key", LoadGenerator.apiKey(customer));
        request.setProperty(PEER_PROPERTY, "127.0.0.1");
        ContainerResponse response = handler.apply(request, new ByteArrayOutputStream(256)).get();
        if (response.getStatus() != 200) {
            throw new IllegalStateException("request " + i + " was answered " + response.getStatus());
        }
    }

    /** Admits every request without work: the bare filter's cost alone. */
    private static final class Admitting implements Contender {
        @Override
        public Outcome acquire(int customer) {
            return Outcome.ADMITTED;
        }

        @Override
        public String keyMarker(int customer) {
            return "none";
        }

        @Override
        public void close() {
        }
    }
}
