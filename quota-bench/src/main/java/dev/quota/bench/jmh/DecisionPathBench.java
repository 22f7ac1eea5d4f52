package dev.quota.bench.jmh;

import dev.quota.bench.http.HttpBench;
import dev.quota.bench.http.LoadGenerator;
import dev.quota.core.Caller;
import dev.quota.core.Credential;
import dev.quota.core.Customer;
import dev.quota.core.QuotaDecision;
import dev.quota.core.QuotaService;
import dev.quota.core.RequestFacts;
import dev.quota.core.store.InMemoryStore;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * The decision path without a store's network: {@link QuotaService} over the in-JVM store, one
 * limit, {@link HttpBench#CUSTOMERS} customers, in two cases:
 * <ul>
 *   <li>{@code decide} and {@code identifyAndDecide}: each thread decides for customers no other
 *       thread uses, so that the only thing the threads share is the service itself. Throughput per
 *       busy core that falls as threads are added shows a lock or a counter every decision takes.
 *   <li>{@code decideOneCustomer}: every thread decides for the same customer, so every decision
 *       takes that customer's one bucket (its leased batch, {@code HotBucket}, or the store's entry):
 *       this serialization is inherent, and the figure shows what it costs beyond it.
 *   <li>{@code decideRefused}: as {@code decide}, on a plan of 1 per second, so nearly every
 *       decision is refused and offered to the rejection log (at INFO, as a default logging setup
 *       has it; its lines go to {@code quota-bench-decisions.log} in the temporary directory).
 * </ul>
 * On a machine with fewer cores than threads the throughput per thread also falls by the cores'
 * share, which the table's last column divides out ({@code per thread x threads / min(threads, cores)}).
 *
 * <pre>
 * java -jar quota-bench/target/quota-bench.jar decisions [--quick]
 * </pre>
 */
@State(Scope.Benchmark)
public class DecisionPathBench {

    /** The forks' options: the heap, and the rejection log at INFO, written to a file rather than the table. */
    static final String[] JVM_ARGS = {"-Xmx1g", "-Dorg.slf4j.simpleLogger.log.dev.quota.rejections=info",
        "-Dorg.slf4j.simpleLogger.logFile=" + System.getProperty("java.io.tmpdir") + "/quota-bench-decisions.log"};

    /** Threads measured, as the issue of a contended path asks: 1, 4, 16 and 64. */
    static final int[] THREADS = {1, 4, 16, 64};
    /** Customers each thread keeps to: 64 threads x 15 stay within the config's customers. */
    static final int PER_THREAD = HttpBench.CUSTOMERS / 64;

    private QuotaService service;
    private QuotaService refusing;
    private Customer[] customers;
    private String[] apiKeys;
    private final AtomicInteger threads = new AtomicInteger();

    /** Builds the services: one whose capacity admits every decision, one that refuses nearly every one. */
    @Setup(Level.Trial)
    public void start() {
        service = QuotaService.builder().store(InMemoryStore.builder().build())
                .config(HttpBench.config(1_000_000_000L)).build();
        refusing = QuotaService.builder().store(InMemoryStore.builder().build())
                .config(HttpBench.config(1)).build();
        customers = new Customer[HttpBench.CUSTOMERS];
        apiKeys = new String[HttpBench.CUSTOMERS];
        for (int i = 0; i < customers.length; i++) {
            customers[i] = Customer.of("http-customer-" + i, "bench");
            apiKeys[i] = LoadGenerator.apiKey(i);
        }
    }

    /** Closes the service. */
    @TearDown(Level.Trial)
    public void stop() {
        service.close();
        refusing.close();
    }

    /** One thread's own customers. */
    @State(Scope.Thread)
    public static class Turn {
        int base;
        int next;
        InetAddress peer;

        /** Takes the next unused range of customers. */
        @Setup(Level.Trial)
        public void join(DecisionPathBench bench) throws java.net.UnknownHostException {
            int index = bench.threads.getAndIncrement();
            base = (index % 64) * PER_THREAD;
            peer = InetAddress.getByAddress(new byte[] {10, 0, (byte) (index >> 8), (byte) index});
        }

        int customer() {
            int i = base + next;
            next = next + 1 == PER_THREAD ? 0 : next + 1;
            return i;
        }
    }

    /** A decision for a known customer: the layout, the charge, the store call, the listeners. */
    @Benchmark
    public QuotaDecision decide(Turn turn) {
        return service.decide(customers[turn.customer()], null);
    }

    /** Every thread deciding for one customer: one bucket, so the threads meet on its lock. */
    @Benchmark
    public QuotaDecision decideOneCustomer() {
        return service.decide(customers[0], null);
    }

    /** A decision for a known customer over its limit: refused, told to the rejection log. */
    @Benchmark
    public QuotaDecision decideRefused(Turn turn) {
        return refusing.decide(customers[turn.customer()], null);
    }

    /** A request's API key resolved to its customer, then decided, as the filter does. */
    @Benchmark
    public QuotaDecision identifyAndDecide(Turn turn) {
        Caller caller = service.identify(RequestFacts.of(Credential.apiKey(apiKeys[turn.customer()]), turn.peer));
        return service.decide(caller, null, null);
    }

    /**
     * Runs the four benchmarks at 1, 4, 16 and 64 threads and prints operations per second per thread.
     *
     * @param args {@code --quick}: one warm-up and one measured second per point (a smoke run:
     *             past 4 threads the path is not yet compiled); else 10 warm-up and 5 measured
     * @throws Exception if JMH fails
     */
    public static void main(String[] args) throws Exception {
        boolean quick = List.of(args).contains("--quick");
        int cores = Runtime.getRuntime().availableProcessors();
        List<String[]> rows = new ArrayList<>();
        for (String benchmark : List.of("decide", "identifyAndDecide", "decideOneCustomer", "decideRefused")) {
            double perThreadAtOne = 0;
            for (int threads : THREADS) {
                Options options = new OptionsBuilder()
                        .include(DecisionPathBench.class.getName() + "\\." + benchmark + "$")
                        .threads(threads)
                        .forks(1)
                        .jvmArgsAppend(JVM_ARGS)
                        // 10 s: at 16 and 64 threads on 2 cores the compiler competes with every
                        // runnable thread, and 3 s left the path partly compiled (a path whose
                        // threads park behind a lock warms faster, and looked faster for it)
                        .warmupIterations(quick ? 1 : 10).warmupTime(TimeValue.seconds(1))
                        .measurementIterations(quick ? 1 : 5).measurementTime(TimeValue.seconds(1))
                        .timeUnit(TimeUnit.SECONDS)
                        .build();
                var results = new Runner(options).run();
                if (results.isEmpty()) {
                    throw new IllegalStateException(benchmark + " at " + threads + " threads failed: see JMH's output above");
                }
                RunResult result = results.iterator().next();
                double total = result.getPrimaryResult().getScore();
                double error = result.getPrimaryResult().getScoreError();
                double perThread = total / threads;
                if (threads == 1) {
                    perThreadAtOne = perThread;
                }
                double perCore = total / Math.min(threads, cores);
                rows.add(new String[] {benchmark, Integer.toString(threads),
                        String.format(Locale.ROOT, "%,.0f ± %,.0f", total, Double.isNaN(error) ? 0 : error),
                        String.format(Locale.ROOT, "%,.0f", perThread),
                        String.format(Locale.ROOT, "%.2fx", perThread / perThreadAtOne),
                        String.format(Locale.ROOT, "%.2fx", perCore / perThreadAtOne)});
            }
        }
        System.out.println();
        System.out.println("Decision path, in-JVM store, " + cores + " cores (ops/s)");
        System.out.println("| benchmark | threads | total | per thread | per thread vs 1 | per busy core vs 1 |");
        System.out.println("|---|---:|---:|---:|---:|---:|");
        for (String[] row : rows) {
            System.out.println("| " + String.join(" | ", row) + " |");
        }
    }
}
