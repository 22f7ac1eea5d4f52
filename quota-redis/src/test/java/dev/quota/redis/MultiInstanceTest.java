package dev.quota.redis;

import dev.quota.testkit.BusyCores;
import org.junit.jupiter.api.extension.ExtendWith;
import dev.quota.core.RouteMatch;
import dev.quota.core.Caller;
import dev.quota.core.Amount;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.AmountLimits;
import dev.quota.core.Customer;
import dev.quota.core.FailurePolicy;
import dev.quota.core.Limit;
import dev.quota.core.Plan;
import dev.quota.core.QuotaConfig;
import dev.quota.core.QuotaDecision;
import dev.quota.core.QuotaService;
import dev.quota.core.Refill;
import dev.quota.core.Rule;
import dev.quota.testkit.MutableClock;
import dev.quota.testkit.RedisExtension;
import java.time.Duration;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
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
 * Several instances, each with its own Redisson client and service, sharing one real Redis: the
 * limits hold for the fleet, not per instance.
 */
@ExtendWith(BusyCores.class)
class MultiInstanceTest {

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
    private final List<QuotaService> instances = new ArrayList<>();

    @AfterEach
    void closeInstances() {
        instances.forEach(QuotaService::close);
    }

    private void startInstances(int count, QuotaConfig config) {
        for (int i = 0; i < count; i++) {
            RedisStore store = RedisStore.builder().uri(redis.uri()).clock(clock)
                    .build();
            instances.add(QuotaService.builder().store(store).config(config).clock(clock).build());
        }
    }

    private static QuotaConfig config(String prefix, long capacity, List<Rule> rules, List<AmountLimits> amounts) {
        Plan plan = new Plan("free", List.of(new Limit("burst", capacity, Refill.greedy(1, Duration.ofHours(1)))),
                FailurePolicy.CLOSED);
        QuotaConfig.Builder config = QuotaConfig.builder().version(1).plan(plan);
        rules.forEach(config::rule);
        amounts.forEach(config::amounts);
        return config.build();
    }

    private static <T> List<T> runConcurrently(int tasks, java.util.function.IntFunction<Callable<T>> task) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(64);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<T>> futures = new ArrayList<>();
        for (int i = 0; i < tasks; i++) {
            Callable<T> body = task.apply(i);
            futures.add(pool.submit(() -> {
                start.await();
                return body.call();
            }));
        }
        start.countDown();
        List<T> results = new ArrayList<>();
        for (Future<T> f : futures) {
            results.add(f.get(60, TimeUnit.SECONDS));
        }
        pool.shutdown();
        return results;
    }

    @Test
    void threeInstances_300ConcurrentRequests_admitExactlyCapacity() throws Exception {
        startInstances(3, config("a", 50, List.of(), List.of()));
        Customer customer = Customer.of("fleet-" + System.nanoTime(), "free");

        List<QuotaDecision> decisions = runConcurrently(300, i -> () -> instances.get(i % 3).decide(customer, null));

        assertThat(decisions).extracting(QuotaDecision::outcome).doesNotContain(
                QuotaDecision.Outcome.UNAVAILABLE, QuotaDecision.Outcome.UNENFORCED);
        assertThat(decisions.stream().filter(QuotaDecision::allowed).count()).isEqualTo(50);
    }

    @Test
    void concurrentTransfers_admittedCountsAndAmountsMatchLimits_andRejectedOnesUseNothing() throws Exception {
        Rule transfers = new Rule("transfers", List.of(RouteMatch.parse("POST /api/v1/transfers")), 1,
                List.of(new Limit("per-minute", 40, Refill.greedy(40, Duration.ofMinutes(1)))), List.of(), FailurePolicy.CLOSED);
        AmountLimits amount = new AmountLimits("transfer-amount", List.of(
                new Limit("daily", 1_000_00, Refill.calendar(ChronoUnit.DAYS, ZoneId.of("Europe/Berlin")))), FailurePolicy.CLOSED);
        startInstances(2, config("t", 1_000, List.of(transfers), List.of(amount)));
        Customer customer = Customer.of("bank-" + System.nanoTime(), "free");
        AtomicLong admittedAmount = new AtomicLong();

        // 200 transfers of 100.00: the count limit would pass 40, the amount limit passes exactly 10 (1,000.00)
        List<Boolean> admitted = runConcurrently(200, i -> () -> {
            QuotaService instance = instances.get(i % 2);
            long minor = 100_00;
            // one decision: plan, transfers per customer and the daily amount, in one store call
            if (!instance.decide(Caller.of(customer), "transfers", new Amount("transfer-amount", "EUR", minor))
                    .allowed()) {
                return false;
            }
            admittedAmount.addAndGet(minor);
            return true;
        });

        long count = admitted.stream().filter(b -> b).count();
        var standing = instances.get(0).admin().standing(customer);
        long planRemaining = standing.stream().filter(s -> s.policy().equals("free-burst")).findFirst().orElseThrow().remaining();
        long perMinuteRemaining = standing.stream().filter(s -> s.policy().equals("transfers-per-minute")).findFirst().orElseThrow().remaining();
        QuotaDecision probe = instances.get(1).consumeAmount(customer, new Amount("transfer-amount", "EUR", 1));
        long amountRemainingBeforeProbe = probe.limits().get(0).remaining() + (probe.allowed() ? 1 : 0);

        assertThat(count).isEqualTo(10);
        assertThat(admittedAmount.get()).isEqualTo(1_000_00);
        // nothing leaked: every transfer token or cent taken belongs to an admitted transfer, and every
        // request, admitted or refused, cost the plan one token
        assertThat(planRemaining).isEqualTo(1_000 - 200);
        assertThat(perMinuteRemaining).isEqualTo(40 - count);
        assertThat(amountRemainingBeforeProbe).isEqualTo(1_000_00 - admittedAmount.get());
        // the amount limit, not the count limit, stopped the run: nothing is left
        assertThat(amountRemainingBeforeProbe).isZero();
    }

    @Test
    void reloadUnderLoad_noDecisionFails_andUsageIsKept() throws Exception {
        startInstances(2, config("r", 1_000, List.of(), List.of()));
        Customer customer = Customer.of("reload-" + System.nanoTime(), "free");
        QuotaConfig bigger = config("r", 2_000, List.of(), List.of()).withVersion(2);

        List<QuotaDecision> decisions = runConcurrently(400, i -> () -> {
            if (i == 200) {
                instances.forEach(s -> s.reload(bigger));
            }
            return instances.get(i % 2).decide(customer, null);
        });

        assertThat(decisions).allMatch(QuotaDecision::allowed);
        long remaining = instances.get(0).admin().standing(customer).get(0).remaining();
        // 400 used; after the reload the capacity is 2000 and usage was kept
        assertThat(remaining).isEqualTo(1_600);
    }
}
