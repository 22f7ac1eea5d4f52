package dev.quota.jcache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quota.core.Customer;
import dev.quota.core.FailurePolicy;
import dev.quota.core.LimitStatus;
import dev.quota.core.Limit;
import dev.quota.core.Plan;
import dev.quota.core.QuotaConfig;
import dev.quota.core.QuotaDecision;
import dev.quota.core.QuotaDecision.Outcome;
import dev.quota.core.QuotaService;
import dev.quota.core.QuotaStoreException;
import dev.quota.core.Refill;
import dev.quota.core.resilience.CircuitBreakerStore;
import dev.quota.core.resilience.CircuitBreakerStore.State;
import dev.quota.testkit.Await;
import dev.quota.testkit.MutableClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The grid stops answering, and the circuit breaker and the failure policies take over as they do
 * for Redis: once the breaker has opened and its health check ({@code store::ping}) failed; the
 * calls that failed before are refused with 503. The cache refuses every call while fewer than two members are in the cluster
 * (Hazelcast's split-brain protection, the way a grid that lost its quorum refuses to decide alone):
 * killing one of two members is an outage of the whole grid for the store on the other, and a member
 * joining ends it. Finally the store's own member goes, for good.
 *
 * <p>One service, three plans of capacity 40 without refill (bucket time is frozen): OPEN, CLOSED
 * and LOCAL; the breaker uses the product defaults and {@code store::ping} as its health check.
 */
class GridOutageTest {

    private static final long CAPACITY = 40;
    private static final int LIVE_INSTANCES = 2;

    @ParameterizedTest
    @EnumSource(JCacheStore.Update.class)
    void gridWithoutQuorum_breakerOpens_policiesAnswer_andTheGridTakesOverWhenAMemberJoins(JCacheStore.Update mode) {
        HazelcastGrid grid = HazelcastGrid.members(2);
        grid.start();
        List<State> transitions = new CopyOnWriteArrayList<>();
        QuotaService service = null;
        try {
            MutableClock bucketTime = MutableClock.at("2026-11-29T10:00:00Z");
            JCacheStore store = JCacheStore.builder(grid.cache(0, "protected-" + mode)).update(mode).clock(bucketTime)
                    .build();
            CircuitBreakerStore breaker = CircuitBreakerStore.builder(store).healthCheck(store::ping)
                    .listener((from, to) -> transitions.add(to)).build();
            service = QuotaService.builder().store(breaker).clock(bucketTime).config(threePlans())
                    .liveInstances(() -> LIVE_INSTANCES).build();
            QuotaService decider = service;

            // before: the grid decides
            for (FailurePolicy policy : FailurePolicy.values()) {
                assertThat(decide(decider, policy, "before", 10)).extracting(QuotaDecision::outcome)
                        .containsOnly(Outcome.ALLOWED);
            }

            grid.terminate(1);
            Await.until(Duration.ofSeconds(30), () -> {
                decide(decider, FailurePolicy.CLOSED, "opening", 1);
                return breaker.outage();
            }, () -> "the outage is established once the grid refuses (breaker open, ping failing)");

            // outage: every policy answers, fast, without the grid
            long started = System.nanoTime();
            List<QuotaDecision> open = decide(service, FailurePolicy.OPEN, "outage", 50);
            List<QuotaDecision> closed = decide(service, FailurePolicy.CLOSED, "outage", 50);
            List<QuotaDecision> local = decide(service, FailurePolicy.LOCAL, "outage", 50);
            long outageMillis = (System.nanoTime() - started) / 1_000_000;
            System.out.printf("%s: 150 decisions while the grid refused, in %d ms%n", mode, outageMillis);
            assertThat(open).extracting(QuotaDecision::outcome).containsOnly(Outcome.UNENFORCED);
            assertThat(closed).extracting(QuotaDecision::outcome).containsOnly(Outcome.UNAVAILABLE);
            assertThat(local).extracting(QuotaDecision::outcome).containsOnly(Outcome.ALLOWED, Outcome.REJECTED);
            assertThat(local.stream().filter(QuotaDecision::allowed).count()).as("LOCAL: 40 / 2 live instances")
                    .isEqualTo(CAPACITY / LIVE_INSTANCES);
            assertThat(breaker.state()).isEqualTo(State.OPEN);
            assertThatThrownBy(store::ping).isInstanceOf(QuotaStoreException.class)
                    .hasMessageContaining("cache 'protected-" + mode + "' failed");

            // a member joins: the health check passes, and the grid decides again with what it held
            grid.startMember();
            Await.until(Duration.ofSeconds(30), () -> breaker.state() == State.CLOSED, () -> "the breaker closes");
            for (FailurePolicy policy : FailurePolicy.values()) {
                List<QuotaDecision> after = decide(service, policy, "before", 10);
                assertThat(after).extracting(QuotaDecision::outcome).containsOnly(Outcome.ALLOWED);
                assertThat(after).allSatisfy(d -> assertThat(d.limits().get(0).limit().capacity()).isEqualTo(CAPACITY));
                assertThat(service.admin().standing(customer(policy, "before"))).extracting(LimitStatus::remaining)
                        .as("%s: 10 before the outage, 10 after", policy).containsExactly(CAPACITY - 20);
            }

            // the store's own member goes: no exception reaches the caller, the policies answer again
            grid.terminate(0);
            Await.until(Duration.ofSeconds(30), () -> {
                decide(decider, FailurePolicy.CLOSED, "gone", 1);
                return breaker.outage();
            }, () -> "the outage is established once the member is gone");
            assertThat(decide(service, FailurePolicy.OPEN, "gone", 5)).extracting(QuotaDecision::outcome)
                    .containsOnly(Outcome.UNENFORCED);
            assertThat(decide(service, FailurePolicy.CLOSED, "gone", 5)).extracting(QuotaDecision::outcome)
                    .containsOnly(Outcome.UNAVAILABLE);
            assertThat(transitions).startsWith(State.OPEN).contains(State.CLOSED).endsWith(State.OPEN);
        } finally {
            if (service != null) {
                service.close();
            }
            grid.stop();
        }
    }

    /** {@code count} decisions, one after the other, for the customer of {@code policy}'s plan in {@code phase}. */
    private static List<QuotaDecision> decide(QuotaService service, FailurePolicy policy, String phase, int count) {
        List<QuotaDecision> decisions = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            decisions.add(service.decide(customer(policy, phase), null));
        }
        return decisions;
    }

    private static Customer customer(FailurePolicy policy, String phase) {
        return Customer.of(phase + "-" + policy, policy.name().toLowerCase(java.util.Locale.ROOT));
    }

    private static QuotaConfig threePlans() {
        QuotaConfig.Builder config = QuotaConfig.builder();
        for (FailurePolicy policy : FailurePolicy.values()) {
            String name = policy.name().toLowerCase(java.util.Locale.ROOT);
            config.plan(Plan.of(name, List.of(new Limit("burst", CAPACITY, Refill.greedy(1, Duration.ofHours(1)))),
                    policy));
        }
        return config.build();
    }
}
