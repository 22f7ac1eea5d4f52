package dev.quota.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Customer;
import dev.quota.core.FailurePolicy;
import dev.quota.core.Limit;
import dev.quota.core.Plan;
import dev.quota.core.QuotaConfig;
import dev.quota.core.QuotaDecision;
import dev.quota.core.QuotaService;
import dev.quota.core.Refill;
import dev.quota.core.Rule;
import dev.quota.core.TokenLeasing;
import dev.quota.core.spi.QuotaStore;
import dev.quota.core.store.ForwardingStore;
import dev.quota.testkit.MutableClock;
import dev.quota.testkit.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Leased shares on a real Redis, with the defaults: four instances (each its own Redisson client
 * and service, told there are four), 32 threads deciding on one hot key at frozen time. The fleet
 * admits exactly what it took from the bucket and never more than the limit; what batches still
 * hold goes back on close, and a service without leases then reads exactly the unadmitted tokens.
 */
class LeasedSharesRedisTest {

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private static final int INSTANCES = 4;
    private static final long CAPACITY = 2_000;

    private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
    private final List<QuotaService> services = new ArrayList<>();

    @AfterEach
    void close() {
        services.forEach(QuotaService::close);
    }

    private static QuotaConfig config() {
        return QuotaConfig.builder()
                .plan(Plan.of("hot", List.of(new Limit("hourly", CAPACITY, Refill.interval(CAPACITY, Duration.ofHours(1)))),
                        FailurePolicy.CLOSED))
                .rule(Rule.builder("transfers").shared(List.of(
                        new Limit("everyone", CAPACITY, Refill.interval(CAPACITY, Duration.ofHours(1))))).build())
                .version(1)
                .build();
    }

    private QuotaService instance(QuotaStore store, TokenLeasing leasing) {
        QuotaService service = QuotaService.builder().store(store).clock(clock).config(config())
                .liveInstances(() -> INSTANCES).tokenLeasing(leasing).build();
        services.add(service);
        return service;
    }

    @Test
    void fourInstancesOnOneHotKey_admitExactlyWhatTheyTook_neverAboveTheLimit_andGiveTheRestBack() throws Exception {
        Customer customer = Customer.of("hot-" + UUID.randomUUID(), "hot");
        AtomicLong consumes = new AtomicLong();
        List<QuotaService> fleet = new ArrayList<>();
        for (int i = 0; i < INSTANCES; i++) {
            QuotaStore client = RedisStore.builder().uri(redis.uri()).clock(clock).build();
            fleet.add(instance(new ForwardingStore(client) {
                @Override
                protected void before(String operation) {
                    if (operation.equals("consume")) {
                        consumes.incrementAndGet();
                    }
                }
            }, TokenLeasing.DEFAULT));
        }
        int decisions = 6_000;
        ExecutorService pool = Executors.newFixedThreadPool(32);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Boolean>> admitted = new ArrayList<>();
        for (int i = 0; i < decisions; i++) {
            QuotaService on = fleet.get(i % INSTANCES);
            admitted.add(pool.submit(() -> {
                start.await();
                QuotaDecision decision = on.decide(customer, null);
                assertThat(decision.outcome()).isIn(QuotaDecision.Outcome.ALLOWED, QuotaDecision.Outcome.REJECTED);
                return decision.allowed();
            }));
        }
        start.countDown();
        long allowed = 0;
        for (Future<Boolean> f : admitted) {
            allowed += f.get(120, TimeUnit.SECONDS) ? 1 : 0;
        }
        pool.shutdown();
        long held = 0;
        long batches = 0;
        for (QuotaService service : fleet) {
            held += service.leasedTokens().held();
            batches += service.leasedTokens().batches();
        }
        long inRedis = fleet.get(0).admin().standing(customer).get(0).remaining();

        assertThat(batches).as("the key was hot: batches were taken").isPositive();
        assertThat(consumes.get()).as("batches served decisions without a store call").isLessThan(decisions);
        assertThat(allowed).as("never above the limit").isLessThanOrEqualTo(CAPACITY);
        assertThat(allowed + held + inRedis).as("every token admitted, held or in Redis, once").isEqualTo(CAPACITY);
        assertThat(held).as("at most the published bound: 4 x (floor(0.1 x 2000 / 4) + 0)")
                .isLessThanOrEqualTo(TokenLeasing.DEFAULT.heldAtMost(CAPACITY, INSTANCES, 1));

        for (QuotaService service : fleet) {
            service.close();
        }
        services.removeAll(fleet);
        QuotaService reader = instance(RedisStore.builder().uri(redis.uri()).clock(clock).build(), TokenLeasing.OFF);
        assertThat(reader.admin().standing(customer).get(0).remaining())
                .as("closed: what the batches held is back").isEqualTo(CAPACITY - allowed);
        long more = 0;
        while (reader.decide(customer, null).allowed()) {
            more++;
        }
        assertThat(allowed + more).as("the fleet and the reader together: exactly the limit").isEqualTo(CAPACITY);
    }

    @Test
    void sharedRuleOverManyCustomers_fourInstances_neverAdmitMoreThanTheSharedLimit() throws Exception {
        List<QuotaService> fleet = new ArrayList<>();
        for (int i = 0; i < INSTANCES; i++) {
            fleet.add(instance(RedisStore.builder().uri(redis.uri()).clock(clock).build(), TokenLeasing.DEFAULT));
        }
        String run = UUID.randomUUID().toString();
        int decisions = 3_000;
        ExecutorService pool = Executors.newFixedThreadPool(32);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Boolean>> admitted = new ArrayList<>();
        for (int i = 0; i < decisions; i++) {
            QuotaService on = fleet.get(i % INSTANCES);
            Customer customer = Customer.of("c" + (i % 300) + "-" + run, "hot");
            admitted.add(pool.submit(() -> {
                start.await();
                return on.decide(customer, "transfers").allowed();
            }));
        }
        start.countDown();
        long allowed = 0;
        for (Future<Boolean> f : admitted) {
            allowed += f.get(120, TimeUnit.SECONDS) ? 1 : 0;
        }
        pool.shutdown();
        long held = 0;
        for (QuotaService service : fleet) {
            held += service.leasedTokens().held();
        }

        // 3,000 asked of a shared limit of 2,000; each customer's plan (2,000) is far from empty
        assertThat(allowed).as("never above the shared limit").isLessThanOrEqualTo(CAPACITY);
        assertThat(allowed).as("short of it by at most what batches hold")
                .isGreaterThanOrEqualTo(CAPACITY - TokenLeasing.DEFAULT.heldAtMost(CAPACITY, INSTANCES, 1));
        assertThat(allowed + held).as("or exactly, counting what they hold").isLessThanOrEqualTo(CAPACITY);
    }
}
