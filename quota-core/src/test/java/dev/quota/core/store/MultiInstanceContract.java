package dev.quota.core.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Amount;
import dev.quota.core.AmountLimits;
import dev.quota.core.Caller;
import dev.quota.core.Concurrency;
import dev.quota.core.Customer;
import dev.quota.core.FailurePolicy;
import dev.quota.core.Limit;
import dev.quota.core.LimitStatus;
import dev.quota.core.Plan;
import dev.quota.core.QuotaConfig;
import dev.quota.core.QuotaDecision;
import dev.quota.core.QuotaService;
import dev.quota.core.Refill;
import dev.quota.core.RouteMatch;
import dev.quota.core.Rule;
import dev.quota.core.TokenLeasing;
import dev.quota.core.spi.QuotaStore;
import dev.quota.testkit.BusyCores;
import dev.quota.testkit.MutableClock;
import java.time.Duration;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Several instances of a service, each with its own client of one shared store and its own
 * {@link QuotaService}, deciding for the same customer at once: the limits hold for the instances
 * together, exactly. Every store runs this scenario through a subclass (Redis, each JCache mode, the
 * in-JVM store shared by two services), with the store's defaults.
 *
 * <p>Decisions run 16 at a time, on busy cores. A store that changes one bucket at a time may
 * refuse a request early while another holds a token it will give back ({@link
 * dev.quota.core.spi.PerBucketStore}); with 16 in flight at most 15 such tokens are held, fewer
 * than any limit here has spare, so the figures are exact for every store.
 */
@ExtendWith(BusyCores.class)
public abstract class MultiInstanceContract {

    private static final int IN_FLIGHT = 16;

    protected final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
    private final List<QuotaService> instances = new ArrayList<>();

    /** A new client of the shared store, for instance {@code instance} (0, 1, ...), on {@code clock}. */
    protected abstract QuotaStore newInstanceStore(int instance, MutableClock clock);

    /** How many instances share the store. */
    protected int instanceCount() {
        return 2;
    }

    /**
     * The leased shares the instances run with: the default (on), or {@link TokenLeasing#OFF} in
     * a subclass, so the plain path, where every decision goes to the store, runs the same contract.
     */
    protected TokenLeasing tokenLeasing() {
        return TokenLeasing.DEFAULT;
    }

    @AfterEach
    void closeInstances() {
        instances.forEach(QuotaService::close);
    }

    @Test
    void instances_300ConcurrentDecisionsForOneCustomer_admitExactlyCapacity() throws Exception {
        startInstances(config(50, List.of(), List.of()));
        Customer customer = Customer.of("fleet-" + UUID.randomUUID(), "free");

        List<QuotaDecision> decisions = runConcurrently(300,
                i -> () -> instances.get(i % instances.size()).decide(customer, null));

        assertThat(decisions).extracting(QuotaDecision::outcome)
                .containsOnly(QuotaDecision.Outcome.ALLOWED, QuotaDecision.Outcome.REJECTED);
        assertThat(decisions.stream().filter(QuotaDecision::allowed).count()).isEqualTo(50);
        assertThat(instances.get(instances.size() - 1).admin().standing(customer).get(0).remaining()).isZero();
    }

    @Test
    void concurrentTransfers_admitExactlyWhatTheAmountLimitAllows_andRefusedOnesKeepOnlyThePlanCharge()
            throws Exception {
        Rule transfers = Rule.builder("transfers").matches(List.of(RouteMatch.parse("POST /api/v1/transfers")))
                .perCustomer(List.of(new Limit("per-minute", 40, Refill.greedy(40, Duration.ofMinutes(1)))))
                .onStoreFailure(FailurePolicy.CLOSED).build();
        AmountLimits amount = AmountLimits.of("transfer-amount", List.of(
                new Limit("daily", 1_000_00, Refill.calendar(ChronoUnit.DAYS, ZoneId.of("Europe/Berlin")))),
                FailurePolicy.CLOSED);
        startInstances(config(1_000, List.of(transfers), List.of(amount)));
        Customer customer = Customer.of("bank-" + UUID.randomUUID(), "free");
        AtomicLong admittedAmount = new AtomicLong();

        // 200 transfers of 100.00: the count limit would pass 40, the amount limit passes exactly 10 (1,000.00)
        List<QuotaDecision> decisions = runConcurrently(200, i -> () -> {
            // one decision: plan, transfers per customer and the daily amount
            QuotaDecision decision = instances.get(i % instances.size()).decide(Caller.of(customer), "transfers",
                    new Amount("transfer-amount", "EUR", 100_00));
            if (decision.allowed()) {
                admittedAmount.addAndGet(100_00);
            }
            return decision;
        });

        assertThat(decisions).extracting(QuotaDecision::outcome)
                .containsOnly(QuotaDecision.Outcome.ALLOWED, QuotaDecision.Outcome.REJECTED);
        long count = decisions.stream().filter(QuotaDecision::allowed).count();
        List<LimitStatus> standing = instances.get(0).admin().standing(customer);
        long amountLeft = instances.get(instances.size() - 1).admin()
                .amountStanding(customer, "transfer-amount", "EUR").get(0).remaining();
        assertThat(count).isEqualTo(10);
        assertThat(admittedAmount.get()).isEqualTo(1_000_00);
        // every request, admitted or refused, cost the plan one token; every transfer token and cent
        // taken belongs to an admitted transfer: what a refusal took from one bucket went back
        assertThat(remaining(standing, "free-burst")).isEqualTo(1_000 - 200);
        assertThat(remaining(standing, "transfers-per-minute")).isEqualTo(40 - 10);
        assertThat(amountLeft).as("the amount limit stopped the run: nothing is left").isZero();
    }

    @Test
    void sixthConcurrentTransfer_isRefusedAcrossInstances_whileFiveRun() throws Exception {
        Rule transfers = Rule.builder("transfers").onStoreFailure(FailurePolicy.CLOSED).concurrency(Concurrency.of(5))
                .build();
        startInstances(config(1_000, List.of(transfers), List.of()));
        Customer customer = Customer.of("inflight-" + UUID.randomUUID(), "free");

        // 60 transfers start at once over the instances; none has finished
        List<QuotaDecision> decisions = runConcurrently(60,
                i -> () -> instances.get(i % instances.size()).decide(customer, "transfers"));

        List<QuotaDecision> running = decisions.stream().filter(QuotaDecision::allowed).toList();
        assertThat(running).hasSize(5);
        assertThat(decisions.stream().filter(d -> !d.allowed()))
                .allSatisfy(d -> assertThat(d.violated().policy()).isEqualTo("transfers-in-flight"));
        // one of them ends on its instance: exactly one more may start, on any instance
        instances.get(0).release(running.get(0));
        List<QuotaDecision> next = runConcurrently(30,
                i -> () -> instances.get(i % instances.size()).decide(customer, "transfers"));
        assertThat(next.stream().filter(QuotaDecision::allowed).count()).isEqualTo(1);
    }

    /**
     * An instance that dies holding leases: its client is closed without giving them back, which is
     * all the store ever sees of a killed process (a lease is state in the store, not a connection).
     */
    @Test
    void leasesOfAnInstanceThatDied_comeBackAtTheLeaseTimeout_byTheStoreClock() throws Exception {
        Rule transfers = Rule.builder("transfers").onStoreFailure(FailurePolicy.CLOSED).concurrency(Concurrency.of(5))
                .build();
        List<QuotaService> fleet = startInstances(config(1_000, List.of(transfers), List.of()));
        Customer customer = Customer.of("died-" + UUID.randomUUID(), "free");
        for (int i = 0; i < 5; i++) {
            assertThat(fleet.get(0).decide(customer, "transfers").allowed()).isTrue();
        }
        fleet.remove(0).close(); // its client is closed; what it held stays in the store

        clock.advance(Concurrency.DEFAULT_LEASE_TIMEOUT.minusMillis(1));
        assertThat(fleet.get(0).decide(customer, "transfers").allowed()).as("before the timeout").isFalse();
        clock.advance(Duration.ofMillis(1));

        List<QuotaDecision> after = runConcurrently(20,
                i -> () -> fleet.get(i % fleet.size()).decide(customer, "transfers"));
        assertThat(after.stream().filter(QuotaDecision::allowed).count()).as("all five back").isEqualTo(5);
    }

    /**
     * Leased shares, as shipped: each instance told how many there are, 1,200 decisions on one hot
     * key at frozen time. The instances take batches of the bucket and serve from them; together
     * they admit exactly what they took, never more than the capacity, and once they close, what
     * their batches held is back in the store: a later instance admits exactly the rest.
     */
    @Test
    void instancesOnAHotKey_leaseBatches_admitExactlyWhatTheyTook_andGiveTheRestBackOnClose() throws Exception {
        QuotaConfig config = config(1_000, List.of(), List.of());
        List<QuotaService> fleet = new ArrayList<>();
        for (int i = 0; i < instanceCount(); i++) {
            QuotaService service = QuotaService.builder().store(newInstanceStore(i, clock)).config(config).clock(clock)
                    .liveInstances(this::instanceCount).build(); // leased shares as shipped, whatever tokenLeasing()
            instances.add(service);
            fleet.add(service);
        }
        Customer customer = Customer.of("hot-" + UUID.randomUUID(), "free");

        List<QuotaDecision> decisions = runConcurrently(1_200,
                i -> () -> fleet.get(i % fleet.size()).decide(customer, null));

        long admitted = decisions.stream().filter(QuotaDecision::allowed).count();
        long held = fleet.stream().mapToLong(s -> s.leasedTokens().held()).sum();
        long batches = fleet.stream().mapToLong(s -> s.leasedTokens().batches()).sum();
        long inStore = fleet.get(0).admin().standing(customer).get(0).remaining();
        assertThat(batches).as("the key was hot on the instances").isPositive();
        assertThat(admitted).as("never above the capacity").isLessThanOrEqualTo(1_000);
        assertThat(admitted + held + inStore).as("each token admitted, held or stored, once").isEqualTo(1_000);

        for (QuotaService service : fleet) {
            service.close();
            instances.remove(service);
        }
        QuotaService later = QuotaService.builder().store(newInstanceStore(0, clock)).config(config).clock(clock)
                .tokenLeasing(TokenLeasing.OFF).build();
        instances.add(later);
        long more = 0;
        while (later.decide(customer, null).allowed()) {
            more++;
        }
        assertThat(admitted + more).as("closed: the batches' tokens are back, exactly").isEqualTo(1_000);
    }

    /** Starts {@link #instanceCount()} services over clients of the store; closed after the test. */
    protected List<QuotaService> startInstances(QuotaConfig config) {
        for (int i = 0; i < instanceCount(); i++) {
            instances.add(QuotaService.builder().store(newInstanceStore(i, clock)).config(config).clock(clock)
                    .tokenLeasing(tokenLeasing()).build());
        }
        return instances;
    }

    private static long remaining(List<LimitStatus> standing, String policy) {
        return standing.stream().filter(s -> s.policy().equals(policy)).findFirst().orElseThrow().remaining();
    }

    /** A plan "free" of {@code capacity} requests (refilling 1 an hour), with the given rules and amount limits. */
    protected static QuotaConfig config(long capacity, List<Rule> rules, List<AmountLimits> amounts) {
        Plan plan = Plan.of("free", List.of(new Limit("burst", capacity, Refill.greedy(1, Duration.ofHours(1)))),
                FailurePolicy.CLOSED);
        QuotaConfig.Builder config = QuotaConfig.builder().version(1).plan(plan);
        rules.forEach(config::rule);
        amounts.forEach(config::amounts);
        return config.build();
    }

    /** Runs the tasks {@value #IN_FLIGHT} at a time, started together; their results in task order. */
    protected static <T> List<T> runConcurrently(int tasks, IntFunction<Callable<T>> task) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(IN_FLIGHT);
        try {
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
                results.add(f.get(120, TimeUnit.SECONDS));
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }
}
