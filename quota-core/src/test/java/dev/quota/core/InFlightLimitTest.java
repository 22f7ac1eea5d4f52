package dev.quota.core;

import static dev.quota.core.Configs.config;
import static dev.quota.core.Configs.daily;
import static dev.quota.core.Configs.greedy;
import static dev.quota.core.Configs.plan;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.store.InMemoryStore;
import dev.quota.testkit.MutableClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** In-flight limits ({@link Concurrency}) as decisions see them, with the default lease timeout. */
class InFlightLimitTest {

    private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
    private final Customer alice = Customer.of("alice", "free");
    private final Customer bob = Customer.of("bob", "free");
    private final Rule transfers = Rule.builder("transfers")
            .perCustomer(List.of(greedy("per-minute", 100, 100, Duration.ofMinutes(1)))).concurrency(Concurrency.of(5))
            .build();
    private final SwitchableStore store = new SwitchableStore(clock);
    private final AtomicInteger storeFailures = new AtomicInteger();
    private final List<QuotaDecision> released = new ArrayList<>();

    private QuotaService service(Plan plan, Rule... rules) {
        return QuotaService.builder().store(store).config(config(List.of(plan), List.of(rules), List.of()))
                .listener(new QuotaListener() {
                    @Override
                    public void onStoreFailure(RuntimeException e) {
                        storeFailures.incrementAndGet();
                    }

                    @Override
                    public void onRelease(QuotaDecision decision) {
                        released.add(decision);
                    }
                }).clock(clock).build();
    }

    private static Plan free() {
        return plan("free", greedy("burst", 1_000, 1_000, Duration.ofHours(1)));
    }

    private static List<QuotaDecision> admitFive(QuotaService service, Customer customer) {
        List<QuotaDecision> running = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            QuotaDecision decision = service.decide(customer, "transfers");
            assertThat(decision.allowed()).isTrue();
            assertThat(decision.receipt().holdsLeases()).isTrue();
            running.add(decision);
        }
        return running;
    }

    @Test
    void sixthConcurrentTransfer_isRefusedByTheInFlightLimit_withoutRetryAfter() {
        QuotaService service = service(free(), transfers);
        admitFive(service, alice);

        QuotaDecision sixth = service.decide(alice, "transfers");

        assertThat(sixth.outcome()).isEqualTo(QuotaDecision.Outcome.REJECTED);
        assertThat(sixth.violated().policy()).isEqualTo("transfers-in-flight");
        assertThat(sixth.violated().role()).isEqualTo(LimitStatus.Role.IN_FLIGHT);
        assertThat(sixth.violated().limit().capacity()).isEqualTo(5);
        assertThat(sixth.violated().remaining()).isZero();
        assertThat(sixth.violated().advertised()).as("not a rate: not in the RateLimit headers").isFalse();
        assertThat(sixth.retryAfter()).isZero();
        assertThat(sixth.receipt().holdsLeases()).isFalse();
        assertThat(service.decide(bob, "transfers").allowed()).as("another customer's transfers").isTrue();
        assertThat(service.decide(alice, null).allowed()).as("alice's other requests").isTrue();
    }

    @Test
    void refusedRequest_costsThePlanOneToken_andTheRuleNothing() {
        QuotaService service = service(free(), transfers);
        admitFive(service, alice);

        QuotaDecision sixth = service.decide(alice, "transfers");

        assertThat(remaining(sixth, "free-burst")).isEqualTo(1_000 - 5 - 1);
        assertThat(remaining(sixth, "transfers-per-minute")).isEqualTo(100 - 5);
    }

    @Test
    void release_freesExactlyOneLease_once() {
        QuotaService service = service(free(), transfers);
        List<QuotaDecision> running = admitFive(service, alice);

        service.release(running.get(0));
        service.release(running.get(0));

        assertThat(running.get(0).receipt().holdsLeases()).isFalse();
        assertThat(service.decide(alice, "transfers").allowed()).isTrue();
        assertThat(service.decide(alice, "transfers").allowed()).as("released twice, freed once").isFalse();
    }

    @Test
    void release_tellsTheListenersOnce_andNotForADecisionWithoutLeases() {
        QuotaService service = service(free(), transfers);
        List<QuotaDecision> running = admitFive(service, alice);
        QuotaDecision planOnly = service.decide(alice, null);

        service.release(running.get(0));
        service.release(running.get(0));
        service.release(planOnly);

        assertThat(released).containsExactly(running.get(0));
    }

    @Test
    void leaseNeverGivenBack_comesBackAtTheDefaultLeaseTimeout_byTheClock() {
        QuotaService service = service(free(), transfers);
        admitFive(service, alice);

        clock.advance(Concurrency.DEFAULT_LEASE_TIMEOUT.minusMillis(1));
        assertThat(service.decide(alice, "transfers").allowed()).isFalse();
        clock.advance(Duration.ofMillis(1));

        assertThat(service.decide(alice, "transfers").allowed()).isTrue();
    }

    @Test
    void requestRefusedByARateLimit_holdsNoLease() {
        Rule twoPerHour = Rule.builder("transfers").perCustomer(List.of(greedy("per-hour", 2, 2, Duration.ofHours(1))))
                .concurrency(Concurrency.of(5)).build();
        QuotaService service = service(free(), twoPerHour);
        service.decide(alice, "transfers");
        service.decide(alice, "transfers");

        QuotaDecision refused = service.decide(alice, "transfers");

        assertThat(refused.violated().policy()).isEqualTo("transfers-per-hour");
        assertThat(refused.retryAfter()).isPositive();
        assertThat(refused.receipt().holdsLeases()).isFalse();
        assertThat(remaining(refused, "transfers-in-flight")).isEqualTo(3);
    }

    @Test
    void whenARateLimitLacksToo_theRefusalNamesIt_withItsRetryAfter() {
        Rule fivePerHour = Rule.builder("transfers").perCustomer(List.of(greedy("per-hour", 5, 5, Duration.ofHours(1))))
                .concurrency(Concurrency.of(5)).build();
        QuotaService service = service(free(), fivePerHour);
        admitFive(service, alice);

        QuotaDecision sixth = service.decide(alice, "transfers");

        assertThat(sixth.violated().policy()).isEqualTo("transfers-per-hour");
        assertThat(sixth.retryAfter()).isEqualTo(Duration.ofMinutes(12));
        assertThat(sixth.limits()).filteredOn(s -> s.policy().equals("transfers-in-flight"))
                .singleElement().satisfies(s -> assertThat(s.exhausted()).isTrue());
    }

    @Test
    void inShadowMode_theRequestPastTheLimitRuns_reportedAsAShadowRejectionWithoutRetryAfter() {
        Rule watched = Rule.builder("transfers").mode(Mode.SHADOW).concurrency(Concurrency.of(1)).build();
        QuotaService service = service(free(), watched);
        assertThat(service.decide(alice, "transfers").receipt().holdsLeases()).isTrue();

        QuotaDecision second = service.decide(alice, "transfers");

        assertThat(second.outcome()).isEqualTo(QuotaDecision.Outcome.SHADOW_REJECTED);
        assertThat(second.allowed()).isTrue();
        assertThat(second.violated().policy()).isEqualTo("transfers-in-flight");
        assertThat(second.retryAfter()).isZero();
        assertThat(second.receipt().holdsLeases()).as("a shadow limit takes nothing it lacks").isFalse();
    }

    @Test
    void planConcurrency_countsEveryRequestOfTheCustomer() {
        QuotaService service = service(free().withConcurrency(Concurrency.of(2)), transfers);
        QuotaDecision first = service.decide(alice, null);
        service.decide(alice, "transfers");

        QuotaDecision third = service.decide(alice, null);

        assertThat(third.violated().policy()).isEqualTo("free-in-flight");
        service.release(first);
        assertThat(service.decide(alice, "transfers").allowed()).isTrue();
    }

    @Test
    void customerMultiplier_scalesTheInFlightLimit() {
        QuotaService service = service(free(), transfers);
        Customer doubled = Customer.of("carol", "free", 2);

        for (int i = 0; i < 10; i++) {
            assertThat(service.decide(doubled, "transfers").allowed()).isTrue();
        }
        assertThat(service.decide(doubled, "transfers").allowed()).isFalse();
    }

    @Test
    void leaseTakenBeforeTheBody_isHeldWhenTheBodyStepRefuses_andReleasedThen() {
        AmountLimits amounts = AmountLimits.of("transfer-amount", List.of(daily("daily", 100, "Europe/Berlin")),
                FailurePolicy.CLOSED);
        QuotaService service = QuotaService.builder().store(store)
                .config(config(List.of(free()), List.of(transfers.withConcurrency(Concurrency.of(1))), List.of(amounts)))
                .clock(clock).build();
        QuotaDecision arrived = service.decideBeforeBody(Caller.of(alice), "transfers");
        assertThat(arrived.receipt().holdsLeases()).isTrue();

        QuotaDecision refused = service.decideAfterBody(Caller.of(alice), "transfers",
                new Amount("transfer-amount", "EUR", 101), arrived);

        assertThat(refused.allowed()).isFalse();
        assertThat(refused.receipt().holdsLeases()).as("the request ran until its 4xx was written").isTrue();
        assertThat(service.decideBeforeBody(Caller.of(alice), "transfers").allowed()).isFalse();
        service.release(refused);
        assertThat(service.decideBeforeBody(Caller.of(alice), "transfers").allowed()).isTrue();
    }

    @Test
    void releaseThatFails_isCountedAsAStoreFailure_notThrown_andTheLeaseComesBackAtItsTimeout() {
        QuotaService service = service(free(), transfers.withConcurrency(Concurrency.of(1)));
        QuotaDecision running = service.decide(alice, "transfers");
        store.failing = true;

        service.release(running);

        store.failing = false;
        assertThat(storeFailures).hasValue(1);
        assertThat(service.decide(alice, "transfers").allowed()).isFalse();
        clock.advance(Concurrency.DEFAULT_LEASE_TIMEOUT);
        assertThat(service.decide(alice, "transfers").allowed()).isTrue();
    }

    private static long remaining(QuotaDecision decision, String policy) {
        return decision.limits().stream().filter(s -> s.policy().equals(policy)).findFirst().orElseThrow().remaining();
    }
}
