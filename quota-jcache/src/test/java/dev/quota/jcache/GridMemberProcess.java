package dev.quota.jcache;

import com.hazelcast.cache.impl.HazelcastServerCachingProvider;
import com.hazelcast.config.Config;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import dev.quota.core.Customer;
import dev.quota.core.FailurePolicy;
import dev.quota.core.Limit;
import dev.quota.core.Plan;
import dev.quota.core.QuotaConfig;
import dev.quota.core.QuotaDecision;
import dev.quota.core.QuotaService;
import dev.quota.core.Refill;
import dev.quota.core.resilience.CircuitBreakerStore;
import dev.quota.testkit.Await;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One instance of a service in its own JVM, for {@link MultiProcessGridTest}: an embedded Hazelcast
 * member (loopback TCP-IP join) with the JCache store as {@code quota.store=jcache} builds it (the
 * shipped mode and retry budget, behind the default circuit breaker).
 *
 * <p>Arguments: cluster name, this member's port, every member's port (comma-separated), the customer
 * id, threads, decisions per thread. It prints {@code READY} once it sees every member, waits for a
 * {@code GO} line on stdin, decides, prints {@code RESULT admitted=A rejected=R fallback=F held=H} (H: tokens its
 * leased batches still hold), and
 * stops its member when stdin closes.
 */
public final class GridMemberProcess {

    private GridMemberProcess() {
    }

    public static void main(String[] args) throws Exception {
        String clusterName = args[0];
        int port = Integer.parseInt(args[1]);
        String[] ports = args[2].split(",");
        String customerId = args[3];
        int threads = Integer.parseInt(args[4]);
        int perThread = Integer.parseInt(args[5]);

        HazelcastInstance member = Hazelcast.newHazelcastInstance(config(clusterName, port, ports));
        try {
            Await.until(Duration.ofSeconds(150), () -> member.getCluster().getMembers().size() == ports.length,
                    () -> "member on " + port + " to see " + ports.length + " members");
            var manager = new HazelcastServerCachingProvider(member).getCacheManager();
            // the time of the run stands still: no token comes back while the processes decide
            Clock clock = Clock.fixed(Instant.parse("2026-11-29T10:00:00Z"), ZoneOffset.UTC);
            JCacheStore store = JCacheStore.builder(JCacheStore.cache(manager, "quota-buckets")).clock(clock).build();
            CircuitBreakerStore breaker = CircuitBreakerStore.builder(store).healthCheck(store::ping).build();
            Plan plan = Plan.of("free", List.of(new Limit("burst", 200, Refill.greedy(1, Duration.ofHours(1)))),
                    FailurePolicy.CLOSED);
            QuotaConfig config = QuotaConfig.builder().version(1).plan(plan).build();
            try (QuotaService service = QuotaService.builder().store(breaker).config(config).clock(clock).build()) {
                BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
                System.out.println("READY");
                System.out.flush();
                if (!"GO".equals(in.readLine())) {
                    return;
                }
                Customer customer = Customer.of(customerId, "free");
                AtomicInteger admitted = new AtomicInteger();
                AtomicInteger rejected = new AtomicInteger();
                AtomicInteger fallback = new AtomicInteger();
                CountDownLatch done = new CountDownLatch(threads);
                List<Thread> workers = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    Thread worker = new Thread(() -> {
                        try {
                            for (int i = 0; i < perThread; i++) {
                                QuotaDecision decision = service.decide(customer, null);
                                if (decision.fallback() != null
                                        || decision.outcome() == QuotaDecision.Outcome.UNAVAILABLE
                                        || decision.outcome() == QuotaDecision.Outcome.UNENFORCED) {
                                    fallback.incrementAndGet();
                                } else if (decision.outcome() == QuotaDecision.Outcome.ALLOWED) {
                                    admitted.incrementAndGet();
                                } else if (decision.outcome() == QuotaDecision.Outcome.REJECTED) {
                                    rejected.incrementAndGet();
                                } else {
                                    fallback.incrementAndGet();
                                }
                            }
                        } catch (RuntimeException e) {
                            e.printStackTrace();
                            fallback.incrementAndGet();
                        } finally {
                            done.countDown();
                        }
                    }, "decider-" + t);
                    workers.add(worker);
                }
                workers.forEach(Thread::start);
                done.await();
                System.out.printf("RESULT admitted=%d rejected=%d fallback=%d held=%d%n", admitted.get(), rejected.get(),
                        fallback.get(), service.leasedTokens().held());
                System.out.flush();
                // stay in the grid until every process has decided: the parent closes stdin then
                while (in.readLine() != null) {
                    // nothing else is sent
                }
            }
        } finally {
            member.getLifecycleService().terminate();
        }
    }

    private static Config config(String clusterName, int port, String[] ports) {
        return HazelcastGrid.loopback(clusterName, port, List.of(ports));
    }
}
