package dev.quota.redis;

import dev.quota.core.Customer;
import dev.quota.core.FailurePolicy;
import dev.quota.core.Limit;
import dev.quota.core.Plan;
import dev.quota.core.QuotaConfig;
import dev.quota.core.QuotaService;
import dev.quota.core.Refill;
import dev.quota.core.TokenLeasing;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One instance of a service in its own JVM, for {@link LeasedSharesProcessesTest}: a Redis store
 * and a {@link QuotaService} with the shipped defaults (leased shares on), told how many instances
 * there are, its clock standing still at the instant given (so no bucket refills).
 *
 * <p>Arguments: the Redis URI, the instant, the customer id, the instance count, how many
 * decisions to make (8 threads). It makes them on the customer's one plan bucket, prints
 * {@code ADMITTED a HELD h BATCHES b} (what it admitted, what its batches hold, how many it took), then waits: a line
 * {@code CLOSE} on stdin closes the service (its batches go back) and prints {@code CLOSED}; or it
 * is killed with its batches.
 */
public final class HotKeyProcess {

    /** The plan's capacity, here and in the test. */
    static final long CAPACITY = 3_000;

    private HotKeyProcess() {
    }

    /** The config of every instance: plan {@code hot}, {@link #CAPACITY} requests an hour. */
    static QuotaConfig config() {
        Plan plan = Plan.of("hot", List.of(new Limit("hourly", CAPACITY, Refill.greedy(1, Duration.ofHours(1)))),
                FailurePolicy.CLOSED);
        return QuotaConfig.builder().version(1).plan(plan).build();
    }

    public static void main(String[] args) throws Exception {
        String uri = args[0];
        Clock clock = Clock.fixed(Instant.parse(args[1]), ZoneOffset.UTC);
        Customer customer = Customer.of(args[2], "hot");
        int instances = Integer.parseInt(args[3]);
        int decisions = Integer.parseInt(args[4]);

        RedisStore store = RedisStore.builder().uri(uri).clock(clock).build();
        QuotaService service = QuotaService.builder().store(store).config(config()).clock(clock)
                .liveInstances(() -> instances).tokenLeasing(TokenLeasing.DEFAULT).build();
        AtomicLong admitted = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        List<Future<?>> runs = new ArrayList<>();
        for (int i = 0; i < decisions; i++) {
            runs.add(pool.submit(() -> {
                if (service.decide(customer, null).allowed()) {
                    admitted.incrementAndGet();
                }
            }));
        }
        for (Future<?> run : runs) {
            run.get(120, TimeUnit.SECONDS);
        }
        pool.shutdown();
        System.out.println("ADMITTED " + admitted.get() + " HELD " + service.leasedTokens().held() + " BATCHES "
                + service.leasedTokens().batches());
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.equals("CLOSE")) {
                service.close();
                System.out.println("CLOSED");
                System.out.flush();
            }
        }
    }
}
