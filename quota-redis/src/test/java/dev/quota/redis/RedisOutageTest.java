package dev.quota.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Customer;
import dev.quota.core.FailurePolicy;
import dev.quota.core.LimitStatus;
import dev.quota.core.QuotaDecision.Fallback.Kind;
import dev.quota.core.QuotaDecision.Outcome;
import dev.quota.core.QuotaService;
import dev.quota.core.Refill;
import dev.quota.core.resilience.CircuitBreakerStore;
import dev.quota.core.resilience.CircuitBreakerStore.State;
import dev.quota.core.resilience.DecisionLoad;
import dev.quota.core.resilience.DecisionLoad.Sample;
import dev.quota.core.resilience.OnePlan;
import dev.quota.testkit.Await;
import dev.quota.testkit.MutableClock;
import dev.quota.testkit.RedisExtension;
import dev.quota.testkit.RespClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A service over {@code CircuitBreakerStore(RedisStore)} with 32 concurrent callers while Redis is
 * killed (SIGKILL) and restarted empty, or stalled. Bucket time is frozen, so every count is exact:
 * capacity 40 and no refill; while Redis is away, the local policy enforces 40 / 4 live instances,
 * counted by {@link InstanceRegistry} heartbeats before Redis went away.
 *
 * <p>Each phase uses its own four customers (eight callers each), so what one phase did to a
 * bucket cannot blur the next phase's counts.
 */
class RedisOutageTest {

    private static final int CALLERS = 32;
    private static final int CUSTOMERS = 4;
    private static final long CAPACITY = 40;
    private static final int LIVE_INSTANCES = 4;
    private static final Duration PAUSE = Duration.ofMillis(2);

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private final MutableClock bucketTime = MutableClock.at("2026-11-29T10:00:00Z");
    private RedisStore redisStore;
    private CircuitBreakerStore breaker;
    private QuotaService service;
    private final List<State> transitions = new CopyOnWriteArrayList<>();
    private final List<InstanceRegistry> instances = new ArrayList<>();

    /** Loads Redisson, Netty and Bucket4j once, so the timings measure Redis, not class loading. */
    @BeforeAll
    static void warmUpTheJvm() {
        try (RedisStore store = RedisStore.builder().uri(redis.uri()).build()) {
            QuotaService service = QuotaService.builder().store(store)
                    .config(OnePlan.config("free", CAPACITY, Refill.greedy(1, Duration.ofHours(1)), FailurePolicy.CLOSED))
                    .build();
            for (int i = 0; i < 200; i++) {
                service.decide(Customer.of("warm-" + (i % 20), "free"), null);
            }
        }
    }

    /** Every test starts with an empty Redis, running again if the last test killed it. */
    @BeforeEach
    void freshRedis() {
        redis.server().restart();
    }

    @AfterEach
    void stopAll() {
        instances.forEach(InstanceRegistry::close);
        if (service != null) {
            service.close();
        }
    }

    private void startService(FailurePolicy policy) {
        // the product defaults: 2 s command timeout, breaker after 5 failures, 1 s open, 250 ms probes
        redisStore = RedisStore.builder().uri(redis.uri()).clock(bucketTime).build();
        breaker = CircuitBreakerStore.builder(redisStore).healthCheck(redisStore::ping)
                .listener((from, to) -> transitions.add(to)).build();
        // this instance and three others (sharing its connection here) count each other in Redis
        for (int i = 0; i < LIVE_INSTANCES; i++) {
            instances.add(InstanceRegistry.builder(redisStore.client()).heartbeatInterval(Duration.ofMillis(200))
                    .timeToLive(Duration.ofSeconds(3)).build());
        }
        InstanceRegistry self = instances.get(0);
        Await.until(Duration.ofSeconds(5), () -> self.liveInstances() == LIVE_INSTANCES,
                () -> LIVE_INSTANCES + " live instances");
        service = QuotaService.builder().store(breaker).clock(bucketTime)
                .config(OnePlan.config("free", CAPACITY, Refill.greedy(1, Duration.ofHours(1)), policy))
                .liveInstances(self::liveInstances).build();
        for (int i = 0; i < 100; i++) {
            service.decide(Customer.of("warm-" + (i % 10), "free"), null);
        }
        assertThat(breaker.state()).isEqualTo(State.CLOSED);
    }

    /** What Redis holds for {@code customer}, read through a store of its own. */
    private List<Long> inRedis(Customer customer) {
        try (RedisStore patient = RedisStore.builder().uri(redis.uri()).clock(bucketTime).build();
             QuotaService reader = QuotaService.builder().store(patient).clock(bucketTime)
                     .config(service.config()).build()) {
            return reader.admin().standing(customer).stream().map(LimitStatus::remaining).toList();
        }
    }

    @ParameterizedTest
    @EnumSource(FailurePolicy.class)
    void redisKilledUnderLoad_everyDecisionFollowsThePolicy_andRedisTakesOverAgainAfterRestart(FailurePolicy policy)
            throws Exception {
        startService(policy);
        DecisionLoad load = new DecisionLoad(service, CALLERS, CUSTOMERS, PAUSE, "before");
        load.start();
        // run until every customer's bucket is spent, not for a fixed time: a loaded machine is slow
        assertThat(within(Duration.ofSeconds(20), () -> load.allSpent("before"), "every bucket spent")).isTrue();

        redis.server().kill();
        long killed = System.nanoTime();
        load.phase("establishing");
        boolean established = within(Duration.ofSeconds(20), breaker::outage, "outage established");
        long establishedMillis = (System.nanoTime() - killed) / 1_000_000;
        load.phase("outage");
        runFor(Duration.ofMillis(1200));

        load.phase("recovering");
        long restarted = System.nanoTime();
        redis.server().restart();
        boolean recovered = within(Duration.ofSeconds(10), () -> breaker.state() == State.CLOSED, "breaker closed");
        long recoveryMillis = (System.nanoTime() - restarted) / 1_000_000;
        load.phase("after");
        boolean afterSpent = within(Duration.ofSeconds(20), () -> load.allSpent("after"), "every bucket spent after");
        boolean finished = load.stop(Duration.ofSeconds(10));

        List<Sample> samples = load.samples();
        // A caller reads the phase, then decides: on a busy machine it can be descheduled in between,
        // or its decision can outlast the phase. A decision counts for a phase when it started and
        // ended in it. One that started before the kill and ended while Redis was down was decided
        // by the Redis that was killed (or failed), so it counts for "before"; one that ended once
        // Redis was restarted was decided by the restarted, empty Redis, or by the policy: it is
        // counted apart, and checked only for exceptions.
        Set<String> killedRedis = Set.of("before", "establishing", "outage");
        List<Sample> before = samples.stream()
                .filter(s -> s.phase().equals("before") && killedRedis.contains(s.endedIn())).toList();
        Map<String, List<Sample>> byPhase = samples.stream().filter(s -> s.phase().equals(s.endedIn()))
                .collect(Collectors.groupingBy(Sample::phase));
        List<Sample> establishing = byPhase.getOrDefault("establishing", List.of());
        List<Sample> outage = byPhase.getOrDefault("outage", List.of());
        List<Sample> after = byPhase.getOrDefault("after", List.of());
        long acrossPhases = samples.stream().filter(s -> !s.phase().equals(s.endedIn())).count();
        System.out.printf("outage %s: %d decisions ended in a later phase than they started in%n", policy,
                acrossPhases);
        // most "before" decisions are rejections of spent buckets, answered from memory; the
        // admitted ones are the Redis round trips
        List<Sample> throughRedis = before.stream().filter(s -> s.outcome() == Outcome.ALLOWED).toList();
        System.out.printf("outage %s: %d decisions; before p50 %d us p99 %d us (admitted through Redis: p50 %d us"
                        + " p99 %d us); outage p50 %d us p99 %d us max %d us; outage established %d ms after the"
                        + " kill; Redis again %d ms after restart%n",
                policy, samples.size(), DecisionLoad.percentileMicros(before, 50),
                DecisionLoad.percentileMicros(before, 99), DecisionLoad.percentileMicros(throughRedis, 50),
                DecisionLoad.percentileMicros(throughRedis, 99), DecisionLoad.percentileMicros(outage, 50),
                DecisionLoad.percentileMicros(outage, 99), DecisionLoad.percentileMicros(outage, 100), establishedMillis,
                recoveryMillis);

        assertThat(finished).as("every caller returned").isTrue();
        assertThat(load.errors()).as("exceptions thrown to callers").isEmpty();
        assertThat(DecisionLoad.percentileMicros(samples, 100)).as("slowest decision, us").isLessThan(5_000_000);
        System.out.printf("outage %s: admitted per customer before %s, outage %s, after %s%n", policy,
                allowedPerCustomer(before), allowedPerCustomer(outage), allowedPerCustomer(after));
        assertThat(allowedPerCustomer(before)).as("before the outage, through Redis").hasSize(CUSTOMERS)
                .allSatisfy((customer, allowed) -> assertExactlyCapacity(before, customer, allowed));
        assertThat(established).as("the breaker opened and its health check failed").isTrue();
        // until the outage is established, no policy answers: the failed calls are refused (503), and
        // nothing is admitted but by the policy once the health check failed
        assertThat(establishing).extracting(Sample::fallback).contains(Kind.SHED);
        assertThat(establishing).filteredOn(s -> s.fallback() == Kind.SHED).extracting(Sample::outcome)
                .containsOnly(Outcome.UNAVAILABLE);
        assertThat(establishing).filteredOn(s -> s.fallback() != Kind.SHED).extracting(Sample::fallback)
                .isSubsetOf(Kind.valueOf(policy.name()));
        assertThat(outage).extracting(Sample::fallback).containsOnly(Kind.valueOf(policy.name()));
        assertThat(outage).hasSizeGreaterThan(1000);
        switch (policy) {
            case OPEN -> assertThat(outage).extracting(Sample::outcome).containsOnly(Outcome.UNENFORCED);
            case CLOSED -> assertThat(outage).extracting(Sample::outcome).containsOnly(Outcome.UNAVAILABLE);
            default -> {
                assertThat(outage).extracting(Sample::outcome).containsOnly(Outcome.ALLOWED, Outcome.REJECTED);
                assertThat(allowedPerCustomer(outage)).as("during the outage, in this JVM: 40 / 4 instances")
                        .hasSize(CUSTOMERS)
                        .allSatisfy((customer, allowed) -> assertThat(allowed).isEqualTo(CAPACITY / LIVE_INSTANCES));
            }
        }
        assertThat(recovered).as("breaker closed within 10 s of the restart").isTrue();
        assertThat(afterSpent).as("every customer spent its bucket after the restart").isTrue();
        assertThat(allowedPerCustomer(after)).as("after the restart").hasSize(CUSTOMERS)
                .allSatisfy((customer, allowed) -> assertExactlyCapacity(after, customer, allowed));
        for (String customer : allowedPerCustomer(after).keySet()) {
            // the restarted Redis was empty: its bucket for this customer is spent, so Redis enforced it
            assertThat(inRedis(Customer.of(customer, "free"))).as("tokens left in Redis for %s", customer)
                    .containsExactly(0L);
        }
        try (RespClient resp = RespClient.connect(redis.server().host(), redis.server().port())) {
            assertThat(resp.dbSize()).isGreaterThanOrEqualTo(CUSTOMERS);
        }
    }

    /**
     * What broke: a Redis that answered slowly (a busy machine) timed calls out after 100 ms, and the
     * default {@code local} policy admitted them from this JVM while Redis served everyone else.
     */
    @Test
    void redisStalledShorterThanTheTimeout_decisionsWaitForIt_andNoneFallsBack() throws Exception {
        startService(FailurePolicy.LOCAL);
        DecisionLoad load = new DecisionLoad(service, 8, CUSTOMERS, PAUSE, "before");
        load.start();
        runFor(Duration.ofMillis(300));

        load.phase("stalled");
        redis.server().pause(Duration.ofMillis(1500)); // Redis answers nobody for 1.5 s, within the 2 s default
        load.phase("after");
        runFor(Duration.ofMillis(300));
        assertThat(load.stop(Duration.ofSeconds(10))).isTrue();

        List<Sample> stalled = load.samples().stream().filter(s -> s.phase().equals("stalled")).toList();
        System.out.printf("stall: %d decisions while Redis slept 1.5 s; p50 %d us p99 %d us max %d us%n",
                stalled.size(), DecisionLoad.percentileMicros(stalled, 50),
                DecisionLoad.percentileMicros(stalled, 99), DecisionLoad.percentileMicros(stalled, 100));
        assertThat(load.errors()).isEmpty();
        assertThat(transitions).as("the breaker never opened").isEmpty();
        assertThat(load.samples()).isNotEmpty().extracting(Sample::outcome)
                .isSubsetOf(Outcome.ALLOWED, Outcome.REJECTED);
        assertThat(allowedPerCustomer(load.samples())).allSatisfy((customer, allowed) ->
                assertThat(allowed).isLessThanOrEqualTo(CAPACITY));
    }

    @Test
    void redisDownAtStartup_withConnectOnBuildFalse_theServiceStartsAndRedisTakesOverWhenItComes() {
        redis.server().kill();
        redisStore = RedisStore.builder().uri(redis.uri()).clock(bucketTime).connectOnBuild(false).build();
        breaker = CircuitBreakerStore.builder(redisStore).healthCheck(redisStore::ping).build();
        service = QuotaService.builder().store(breaker).clock(bucketTime)
                .config(OnePlan.config("free", CAPACITY, Refill.greedy(1, Duration.ofHours(1)), FailurePolicy.CLOSED))
                .build();
        Customer alice = Customer.of("alice", "free");

        for (int i = 0; i < 10; i++) {
            assertThat(service.decide(alice, null).outcome()).isEqualTo(Outcome.UNAVAILABLE);
        }
        assertThat(breaker.state()).isEqualTo(State.OPEN);

        redis.server().restart();
        assertThat(within(Duration.ofSeconds(10), () -> breaker.state() == State.CLOSED, "breaker closed")).isTrue();
        assertThat(service.decide(alice, null).outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(inRedis(alice)).containsExactly(CAPACITY - 1);
    }

    /**
     * Redis admitted exactly the capacity of a customer's bucket (frozen time: no refill), less at
     * most one for each of the customer's calls refused with 503 in that phase: such a call may have
     * reached Redis before it timed out (in doubt), its tokens taken and the request refused. With
     * no failed call, the figure is exact.
     */
    private static void assertExactlyCapacity(List<Sample> phase, String customer, long allowed) {
        long refusedUnavailable = phase.stream()
                .filter(s -> s.customer().equals(customer) && s.outcome() == Outcome.UNAVAILABLE).count();
        assertThat(allowed).as("%s admitted, with %d calls refused 503", customer, refusedUnavailable)
                .isLessThanOrEqualTo(CAPACITY).isGreaterThanOrEqualTo(CAPACITY - refusedUnavailable);
    }

    private static Map<String, Long> allowedPerCustomer(List<Sample> samples) {
        return samples.stream().collect(Collectors.groupingBy(Sample::customer,
                Collectors.summingLong(s -> s.outcome() == Outcome.ALLOWED ? 1 : 0)));
    }

    /**
     * Lets the load run for {@code duration} of real time: a phase of the experiment (the decisions
     * made while Redis is away), not a wait for a state.
     */
    private static void runFor(Duration duration) {
        long end = System.nanoTime() + duration.toNanos();
        // a park returns early on a permit left over (the store's combining unparks its callers)
        for (long left = duration.toNanos(); left > 0; left = end - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
    }

    /**
     * {@link Await#until} that answers whether {@code condition} held within {@code timeout} instead
     * of throwing, so that a test stops its load before it asserts.
     */
    private static boolean within(Duration timeout, BooleanSupplier condition, String what) {
        try {
            Await.until(timeout, condition, () -> what);
            return true;
        } catch (IllegalStateException timedOut) {
            System.out.println(timedOut.getMessage());
            return false;
        }
    }
}
