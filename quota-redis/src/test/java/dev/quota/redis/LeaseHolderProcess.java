package dev.quota.redis;

import dev.quota.core.Concurrency;
import dev.quota.core.Customer;
import dev.quota.core.FailurePolicy;
import dev.quota.core.Limit;
import dev.quota.core.Plan;
import dev.quota.core.QuotaConfig;
import dev.quota.core.QuotaDecision;
import dev.quota.core.QuotaService;
import dev.quota.core.QuotaServiceBuilder;
import dev.quota.core.Refill;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;

/**
 * One instance of a service in its own JVM, for {@link KilledInstanceLeasesTest}: a Redis store and a
 * {@link QuotaService} with the shipped defaults, except that the store's clock stands still at the
 * instant given, so the test knows when the leases taken here end.
 *
 * <p>Arguments: the Redis URI, the instant, the customer id, how many leases to take, and
 * optionally {@code registry}: then it runs an {@link InstanceRegistry} with the shipped defaults,
 * wired as a service is ({@code liveInstances}, {@code leaseHolder}), and prints
 * {@code INSTANCE <id>} first. It takes the leases (plan {@code free}, {@link #CONCURRENCY} at
 * once, the default lease timeout), prints {@code HOLDING n}, and then holds them, never giving
 * them back, until it is killed or stdin closes.
 */
public final class LeaseHolderProcess {

    /** The plan's in-flight limit, here and in the test. */
    static final int CONCURRENCY = 5;

    private LeaseHolderProcess() {
    }

    /** The config of every instance: plan {@code free}, 1,000 requests an hour, {@link #CONCURRENCY} at once. */
    static QuotaConfig config() {
        Plan plan = Plan.of("free", List.of(new Limit("burst", 1_000, Refill.greedy(1, Duration.ofHours(1)))),
                FailurePolicy.CLOSED).withConcurrency(Concurrency.of(CONCURRENCY));
        return QuotaConfig.builder().version(1).plan(plan).build();
    }

    public static void main(String[] args) throws Exception {
        String uri = args[0];
        Clock clock = Clock.fixed(Instant.parse(args[1]), ZoneOffset.UTC);
        Customer customer = Customer.of(args[2], "free");
        int leases = Integer.parseInt(args[3]);
        boolean registered = args.length > 4 && args[4].equals("registry");

        RedisStore store = RedisStore.builder().uri(uri).clock(clock).build();
        QuotaServiceBuilder builder = QuotaService.builder().store(store).config(config()).clock(clock);
        InstanceRegistry registry = null;
        if (registered) {
            registry = InstanceRegistry.builder(store.client()).build();
            builder.liveInstances(registry::liveInstances, registry::rank).leaseHolder(registry::leaseHolder);
            System.out.println("INSTANCE " + registry.instanceId());
        }
        // the service closes the store
        try (QuotaService service = builder.build()) {
            int held = 0;
            for (int i = 0; i < leases; i++) {
                QuotaDecision decision = service.decide(customer, null);
                if (decision.outcome() == QuotaDecision.Outcome.ALLOWED) {
                    held++;
                } else {
                    System.err.println("lease " + i + " not taken: " + decision);
                }
            }
            System.out.println("HOLDING " + held);
            System.out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            while (in.readLine() != null) {
                // nothing is sent: the leases stay held until the process is killed
            }
        } finally {
            if (registry != null) {
                registry.close();
            }
        }
    }
}
