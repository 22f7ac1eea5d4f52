package dev.quota.bench;

import dev.quota.core.Concurrency;
import dev.quota.core.Customer;
import dev.quota.core.FailurePolicy;
import dev.quota.core.Limit;
import dev.quota.core.Plan;
import dev.quota.core.QuotaConfig;
import dev.quota.core.QuotaDecision;
import dev.quota.core.QuotaService;
import dev.quota.core.Refill;
import dev.quota.core.Rule;
import dev.quota.redis.RedisStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import org.HdrHistogram.Histogram;

/**
 * In-flight limits on Redis: callers take a lease with each decision (rule {@code transfers},
 * {@code concurrency: 5}, store defaults) and give it back at once, over many customers; prints the
 * p50 and p99 of taking (the decision) and of giving back, and the scripts Redis ran per lease
 * taken and per lease given back together (INFO commandstats), which the combining of concurrent
 * calls into one script keeps at or under one each.
 *
 * <pre>
 * java -jar quota-bench/target/quota-bench.jar leases [--quick]
 * </pre>
 */
final class LeaseBench {

    private LeaseBench() {
    }

    /**
     * What a run measured.
     *
     * @param leases           leases taken and given back
     * @param takeP50Micros    a decision's latency, p50
     * @param takeP99Micros    and p99
     * @param releaseP50Micros giving a lease back, p50
     * @param releaseP99Micros and p99
     * @param scriptsPerLease  scripts Redis ran per lease taken and given back (two calls)
     * @param refused          decisions refused (a customer with five running), which take no lease
     */
    record Result(long leases, double takeP50Micros, double takeP99Micros, double releaseP50Micros,
                  double releaseP99Micros, double scriptsPerLease, long refused) {

        String row() {
            return String.format(Locale.ROOT, "| %,d | %.0f | %.0f | %.0f | %.0f | %.2f | %,d |", leases, takeP50Micros,
                    takeP99Micros, releaseP50Micros, releaseP99Micros, scriptsPerLease, refused);
        }
    }

    /** Entry point: {@code --quick} runs 2 s instead of 20 s. */
    static void main(String[] args) throws Exception {
        boolean quick = List.of(args).contains("--quick");
        try (RedisUnderTest redis = RedisUnderTest.start()) {
            Result result = run(redis, 16, 1_000, Duration.ofSeconds(quick ? 2 : 20));
            System.out.println("| leases | take p50 µs | take p99 µs | give back p50 µs | give back p99 µs"
                    + " | scripts per lease | refused |");
            System.out.println("|---|---|---|---|---|---|---|");
            System.out.println(result.row());
        }
    }

    /** {@code callers} threads on {@code customers} customers for {@code length}, after a warm-up of a fifth of it. */
    static Result run(RedisUnderTest redis, int callers, int customers, Duration length) throws Exception {
        Rule transfers = Rule.builder("transfers").onStoreFailure(FailurePolicy.CLOSED).concurrency(Concurrency.of(5))
                .build();
        Plan plan = Plan.of("free", List.of(new Limit("burst", 1_000_000_000L,
                Refill.greedy(1_000_000_000L, Duration.ofSeconds(1)))), FailurePolicy.CLOSED);
        QuotaConfig config = QuotaConfig.builder().version(1).plan(plan).rule(transfers).build();
        try (QuotaService service = QuotaService.builder().store(RedisStore.builder().uri(redis.uri()).build())
                .config(config).build()) {
            slice(service, callers, customers, length.dividedBy(5)); // warm-up: JIT, connections, known keys
            redis.resetStats();
            Slice measured = slice(service, callers, customers, length);
            long scripts = redis.commandStats().getOrDefault("evalsha", 0L)
                    + redis.commandStats().getOrDefault("eval", 0L);
            long leases = measured.take.getTotalCount();
            return new Result(leases, measured.take.getValueAtPercentile(50) / 1e3,
                    measured.take.getValueAtPercentile(99) / 1e3, measured.release.getValueAtPercentile(50) / 1e3,
                    measured.release.getValueAtPercentile(99) / 1e3,
                    leases == 0 ? 0 : (double) scripts / leases, measured.refused);
        }
    }

    private record Slice(Histogram take, Histogram release, long refused) {
    }

    private static Slice slice(QuotaService service, int callers, int customers, Duration length) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(callers);
        try {
            long end = System.nanoTime() + length.toNanos();
            List<Future<Slice>> parts = new ArrayList<>();
            for (int c = 0; c < callers; c++) {
                parts.add(pool.submit(() -> {
                    Histogram take = Latencies.histogram();
                    Histogram release = Latencies.histogram();
                    long refused = 0;
                    while (System.nanoTime() < end) {
                        Customer customer = Customer.of("c" + ThreadLocalRandom.current().nextInt(customers), "free");
                        long t0 = System.nanoTime();
                        QuotaDecision decision = service.decide(customer, "transfers");
                        long t1 = System.nanoTime();
                        if (!decision.receipt().holdsLeases()) {
                            refused++;
                            continue;
                        }
                        service.release(decision);
                        take.recordValue(t1 - t0);
                        release.recordValue(System.nanoTime() - t1);
                    }
                    return new Slice(take, release, refused);
                }));
            }
            Slice all = new Slice(Latencies.histogram(), Latencies.histogram(), 0);
            long refused = 0;
            for (Future<Slice> part : parts) {
                Slice slice = part.get();
                all.take.add(slice.take);
                all.release.add(slice.release);
                refused += slice.refused;
            }
            return new Slice(all.take, all.release, refused);
        } finally {
            pool.shutdownNow();
        }
    }
}
