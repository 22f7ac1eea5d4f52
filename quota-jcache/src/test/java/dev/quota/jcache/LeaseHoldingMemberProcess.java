package dev.quota.jcache;

import com.hazelcast.cache.impl.HazelcastServerCachingProvider;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import dev.quota.core.Concurrency;
import dev.quota.core.Customer;
import dev.quota.core.FailurePolicy;
import dev.quota.core.Limit;
import dev.quota.core.Plan;
import dev.quota.core.QuotaConfig;
import dev.quota.core.QuotaDecision;
import dev.quota.core.QuotaService;
import dev.quota.core.Refill;
import dev.quota.core.spi.LeaseHolder;
import dev.quota.testkit.Await;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;

/**
 * One instance of a service in its own JVM and its own Hazelcast member, for
 * {@link KilledMemberLeasesTest}: the JCache store with its shipped defaults (its leases held by
 * this member), except that the store's clock stands still at the instant given, so no lease taken
 * here reaches its deadline.
 *
 * <p>Arguments: cluster name, this member's port, every member's port (comma-separated), the
 * instant, the customer id, how many leases to take. It prints {@code MEMBER <uuid>} once its member
 * runs, waits until it sees every member, takes the leases (plan {@code free}, {@link #CONCURRENCY}
 * at once), prints {@code HOLDING n}, and then holds them, never giving them back. Each {@code TAKE}
 * line on stdin decides once more for the customer and prints {@code TOOK <allowed> dead=<tags>}
 * (the members this one knows dead, as tags). It stops when stdin closes, or is killed.
 */
public final class LeaseHoldingMemberProcess {

    /** The plan's in-flight limit, here and in the test. */
    static final int CONCURRENCY = 5;

    private LeaseHoldingMemberProcess() {
    }

    /** The config of every instance: plan {@code free}, 1,000 requests an hour, {@link #CONCURRENCY} at once. */
    static QuotaConfig config() {
        Plan plan = Plan.of("free", List.of(new Limit("burst", 1_000, Refill.greedy(1, Duration.ofHours(1)))),
                FailurePolicy.CLOSED).withConcurrency(Concurrency.of(CONCURRENCY));
        return QuotaConfig.builder().version(1).plan(plan).build();
    }

    public static void main(String[] args) throws Exception {
        String clusterName = args[0];
        int port = Integer.parseInt(args[1]);
        List<String> ports = List.of(args[2].split(","));
        Clock clock = Clock.fixed(Instant.parse(args[3]), ZoneOffset.UTC);
        Customer customer = Customer.of(args[4], "free");
        int leases = Integer.parseInt(args[5]);

        HazelcastInstance member = Hazelcast.newHazelcastInstance(HazelcastGrid.loopback(clusterName, port, ports));
        try {
            System.out.println("MEMBER " + member.getCluster().getLocalMember().getUuid());
            System.out.flush();
            Await.until(Duration.ofSeconds(150), () -> member.getCluster().getMembers().size() == ports.size(),
                    () -> "member on " + port + " to see " + ports.size() + " members");
            var manager = new HazelcastServerCachingProvider(member).getCacheManager();
            JCacheStore store = JCacheStore.builder(JCacheStore.cache(manager, "quota-buckets")).clock(clock).build();
            // the service closes the store
            try (QuotaService service = QuotaService.builder().store(store).config(config()).clock(clock).build()) {
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
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    if (line.equals("TAKE")) {
                        boolean allowed = service.decide(customer, null).allowed();
                        LeaseHolder holder = store.leaseHolder();
                        System.out.println("TOOK " + allowed + " dead=" + holder.deadTags());
                        System.out.flush();
                    }
                }
            }
        } finally {
            member.getLifecycleService().terminate();
        }
    }
}
