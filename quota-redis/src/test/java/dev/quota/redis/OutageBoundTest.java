package dev.quota.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Customer;
import dev.quota.core.FailurePolicy;
import dev.quota.core.QuotaDecision;
import dev.quota.core.QuotaDecision.Fallback.Kind;
import dev.quota.core.QuotaDecision.Outcome;
import dev.quota.core.QuotaService;
import dev.quota.core.Refill;
import dev.quota.core.resilience.CircuitBreakerStore;
import dev.quota.core.resilience.OnePlan;
import dev.quota.testkit.Await;
import dev.quota.testkit.MutableClock;
import dev.quota.testkit.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The outage bound of docs/operations.md, measured: four instances, each with its own Redis
 * client, breaker (health check {@code ping}) and {@link InstanceRegistry}, all under the default
 * {@code local} policy, decide for the same four customers while Redis stalls for 15 s
 * ({@code DEBUG SLEEP}: the process and its data stay, as in a long fork or a frozen host).
 *
 * <p>Bucket time is frozen (capacity 40, no refill), so every count is exact. Per customer: 40
 * admitted through Redis before the stall; during it, nothing until the outage is established
 * (calls that time out are refused with 503), then 40 / 4 = 10 in each instance's JVM, 40 in all:
 * one capacity beyond the limit, the bound; after Redis answers and the breakers close, Redis
 * still holds the spent bucket and nothing more is admitted: exact counting resumed.
 */
class OutageBoundTest {

    private static final int INSTANCES = 4;
    private static final int CUSTOMERS = 4;
    private static final long CAPACITY = 40;
    private static final Duration STALL = Duration.ofSeconds(15);
    private static final Duration PATIENCE = Duration.ofSeconds(60);

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    /** One decision: the phase it started in, instance, customer, outcome and who decided instead of Redis. */
    record Sample(String phase, int instance, String customer, Outcome outcome, @Nullable Kind fallback) {
    }

    private final MutableClock bucketTime = MutableClock.at("2026-11-29T10:00:00Z");
    private final List<QuotaService> services = new ArrayList<>();
    private final List<CircuitBreakerStore> breakers = new ArrayList<>();
    private final List<InstanceRegistry> registries = new ArrayList<>();
    private final List<Sample> samples = new CopyOnWriteArrayList<>();
    private final List<Throwable> errors = new CopyOnWriteArrayList<>();
    private final List<Thread> callers = new ArrayList<>();
    private volatile String phase = "before";
    private volatile boolean stopped;

    @AfterEach
    void stopAll() throws InterruptedException {
        stopped = true;
        for (Thread caller : callers) {
            caller.join(30_000);
        }
        registries.forEach(InstanceRegistry::close);
        services.forEach(QuotaService::close);
    }

    @Test
    void redisStalledUnderLoad_eachCustomerGetsAtMostOneCapacityBeyondTheLimit_andExactCountingResumes()
            throws Exception {
        for (int i = 0; i < INSTANCES; i++) {
            // the product defaults: 2 s timeout, breaker after 5 failures, 1 s open, 250 ms probes
            RedisStore store = RedisStore.builder().uri(redis.uri()).clock(bucketTime).build();
            CircuitBreakerStore breaker = CircuitBreakerStore.builder(store).healthCheck(store::ping).build();
            InstanceRegistry registry = InstanceRegistry.builder(store.client()).build();
            breakers.add(breaker);
            registries.add(registry);
            services.add(QuotaService.builder().store(breaker).clock(bucketTime)
                    .config(OnePlan.config("free", CAPACITY, Refill.greedy(1, Duration.ofHours(1)), FailurePolicy.LOCAL))
                    .liveInstances(registry::liveInstances).build());
        }
        Await.until(PATIENCE, () -> registries.stream().allMatch(r -> r.liveInstances() == INSTANCES),
                () -> "every registry counts " + INSTANCES + " instances");
        for (int i = 0; i < INSTANCES; i++) {
            for (int c = 0; c < CUSTOMERS; c++) {
                int instance = i;
                String customer = "customer-" + c;
                Thread caller = new Thread(() -> call(instance, customer), "caller-" + i + "-" + c);
                callers.add(caller);
                caller.start();
            }
        }
        Await.until(PATIENCE, () -> everyoneRefused("before", null), () -> "every bucket spent in Redis");

        Thread stall = new Thread(() -> redis.server().pause(STALL), "redis-stall");
        phase = "stalled";
        stall.start();
        // bucket time moves on in steps of 1.1 s, past the second in which a refusal Redis confirmed is
        // answered from memory (rejectLocallyFor), so that every caller asks the stalled Redis; at most
        // 33 s in all, which a refill of 1 an hour turns into no whole token
        AtomicInteger steps = new AtomicInteger();
        Await.until(PATIENCE, () -> {
            if (steps.incrementAndGet() <= 30) {
                bucketTime.advance(Duration.ofMillis(1100));
            }
            return breakers.stream().allMatch(CircuitBreakerStore::outage);
        }, () -> "every instance established the outage");
        phase = "outage";
        Await.until(PATIENCE, () -> everyoneRefused("outage", Kind.LOCAL), () -> "every local bucket spent");
        phase = "waiting";
        stall.join();
        long answering = System.nanoTime();
        phase = "recovering";
        Await.until(PATIENCE, () -> breakers.stream().allMatch(b -> b.state() == CircuitBreakerStore.State.CLOSED),
                () -> "every breaker closed");
        long resumedMillis = (System.nanoTime() - answering) / 1_000_000;
        phase = "after";
        Await.until(PATIENCE, () -> everyoneRefused("after", null), () -> "every instance refused by Redis again");
        stopped = true;
        for (Thread caller : callers) {
            caller.join(30_000);
        }

        Map<String, Long> throughRedis = admitted(s -> s.fallback() == null);
        Map<String, Long> local = admitted(s -> s.fallback() == Kind.LOCAL);
        long shed = samples.stream().filter(s -> s.fallback() == Kind.SHED).count();
        System.out.printf("outage bound: %d decisions; admitted per customer through Redis %s, locally %s;"
                        + " %d refused with 503 until the outage was established; exact again %d ms after Redis"
                        + " answered%n", samples.size(), throughRedis, local, shed, resumedMillis);
        assertThat(errors).as("exceptions thrown to callers").isEmpty();
        assertThat(samples).as("nothing admitted but by Redis or, during the outage, by the local policy")
                .filteredOn(s -> s.outcome() == Outcome.ALLOWED)
                .allSatisfy(s -> assertThat(s.fallback()).isIn(null, Kind.LOCAL));
        assertThat(samples).filteredOn(s -> s.fallback() == Kind.SHED).extracting(Sample::outcome)
                .containsOnly(Outcome.UNAVAILABLE);
        assertThat(shed).as("calls that timed out before the outage was established").isPositive();
        assertThat(throughRedis).as("admitted through Redis: exactly the capacity, before and after")
                .hasSize(CUSTOMERS).allSatisfy((customer, n) -> assertThat(n).isEqualTo(CAPACITY));
        assertThat(local).as("admitted locally: 40 / 4 on each of 4 instances, one capacity in all")
                .hasSize(CUSTOMERS).allSatisfy((customer, n) -> assertThat(n).isEqualTo(CAPACITY));
        assertThat(samples).as("after the breakers closed").filteredOn(s -> s.phase().equals("after"))
                .isNotEmpty().allSatisfy(s -> {
                    assertThat(s.outcome()).isEqualTo(Outcome.REJECTED);
                    assertThat(s.fallback()).isNull();
                });
    }

    /** Whether every instance has seen every customer refused in {@code phase} by {@code by} (null: Redis). */
    private boolean everyoneRefused(String phase, @Nullable Kind by) {
        return samples.stream()
                .filter(s -> s.phase().equals(phase) && s.outcome() == Outcome.REJECTED && s.fallback() == by)
                .map(s -> s.instance() + "/" + s.customer()).distinct().count() == (long) INSTANCES * CUSTOMERS;
    }

    private Map<String, Long> admitted(Predicate<Sample> which) {
        return samples.stream().filter(s -> s.outcome() == Outcome.ALLOWED).filter(which)
                .collect(Collectors.groupingBy(Sample::customer, Collectors.counting()));
    }

    /** One caller: decides for {@code customer} on {@code instance} every 2 ms until stopped. */
    private void call(int instance, String customer) {
        Customer who = Customer.of(customer, "free");
        while (!stopped) {
            String current = phase;
            try {
                QuotaDecision decision = services.get(instance).decide(who, null);
                QuotaDecision.Fallback fallback = decision.fallback();
                samples.add(new Sample(current, instance, customer, decision.outcome(),
                        fallback == null ? null : fallback.kind()));
            } catch (RuntimeException e) {
                errors.add(e);
            }
            LockSupport.parkNanos(2_000_000);
        }
    }
}
