package dev.quota.core;

import static dev.quota.core.Configs.config;
import static dev.quota.core.Configs.greedy;
import static dev.quota.core.Configs.plan;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.store.ForwardingStore;
import dev.quota.core.store.InMemoryStore;
import dev.quota.testkit.MutableClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;

/** Under {@link FailurePolicy#LOCAL}, while the store is down each instance enforces its share of the limits. */
class LocalFallbackTest {

    private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
    private final SwitchableStore store = new SwitchableStore(clock);
    private final AtomicReference<IntSupplier> count = new AtomicReference<>(() -> 4);

    private QuotaService service() {
        return QuotaService.builder().store(store).clock(clock)
                .config(config(plan("free", greedy("burst", 40, 40, Duration.ofHours(1)))))
                .liveInstances(() -> count.get().getAsInt())
                .build();
    }

    private static int admitted(QuotaService service, Customer customer, int requests) {
        int admitted = 0;
        for (int i = 0; i < requests; i++) {
            admitted += service.decide(customer, null).allowed() ? 1 : 0;
        }
        return admitted;
    }

    @Test
    void storeDown_eachInstanceAdmitsItsShare() {
        QuotaService service = service();
        store.failing = true;

        assertThat(admitted(service, Customer.of("alice", "free"), 30)).as("40 over 4 instances").isEqualTo(10);
    }

    /**
     * What broke: one call timed out on a busy machine while the store served every other call,
     * and the default {@code local} policy admitted it from an in-JVM bucket beside the store's count.
     */
    @Test
    void aFailedCall_whileTheOutageIsNotEstablished_isRefusedWith503_andNeverAdmittedLocally() {
        QuotaService service = QuotaService.builder().store(new ForwardingStore(InMemoryStore.builder().clock(clock)
                        .build()) {
                    @Override
                    protected void before(String operation) {
                        throw new QuotaStoreException("redis did not answer within 2000 ms (test)");
                    }
                }).clock(clock)
                .config(config(plan("free", greedy("burst", 40, 40, Duration.ofHours(1)))))
                .build();

        QuotaDecision decision = service.decide(Customer.of("alice", "free"), null);

        assertThat(decision.outcome()).isEqualTo(QuotaDecision.Outcome.UNAVAILABLE);
        assertThat(decision.retryAfter()).isEqualTo(Duration.ofSeconds(1));
        assertThat(decision.fallback()).isEqualTo(new QuotaDecision.Fallback(QuotaDecision.Fallback.Kind.SHED,
                "redis did not answer within 2000 ms (test)"));
        assertThat(admitted(service, Customer.of("alice", "free"), 30)).isZero();
    }

    @Test
    void storeDown_theDecisionSaysTheLocalFallbackMadeIt() {
        QuotaService service = service();
        store.failing = true;

        QuotaDecision decision = service.decide(Customer.of("alice", "free"), null);

        assertThat(decision.outcome()).isEqualTo(QuotaDecision.Outcome.ALLOWED);
        assertThat(decision.fallback()).isEqualTo(new QuotaDecision.Fallback(QuotaDecision.Fallback.Kind.LOCAL,
                "store down (test)"));
    }

    /** Instances sharing one failing store, each knowing its rank among {@code count} (or not: -1). */
    private List<QuotaService> fleet(int count, boolean ranked, Limit limit) {
        List<QuotaService> fleet = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            int rank = i;
            QuotaServiceBuilder builder = QuotaService.builder().store(store).clock(clock)
                    .config(config(plan("free", limit)));
            fleet.add((ranked ? builder.liveInstances(() -> count, () -> rank)
                    : builder.liveInstances(() -> count)).build());
        }
        return fleet;
    }

    private static int admitted(List<QuotaService> fleet, Customer customer, int requestsEach) {
        return fleet.stream().mapToInt(service -> admitted(service, customer, requestsEach)).sum();
    }

    /** What broke: the local share was rounded up to one token, so 16 instances admitted 16 of a limit of 10. */
    @Test
    void capacity10Over16Instances_admitsExactly10_theRemainderGoingToTheFirstRanks() {
        List<QuotaService> fleet = fleet(16, true, greedy("burst", 10, 10, Duration.ofHours(1)));
        store.failing = true;
        Customer alice = Customer.of("alice", "free");

        assertThat(admitted(fleet, alice, 5)).isEqualTo(10);
        assertThat(fleet.subList(10, 16)).allSatisfy(service -> {
            QuotaDecision decision = service.decide(alice, null);
            assertThat(decision.outcome()).as("a rank without a token").isEqualTo(QuotaDecision.Outcome.UNAVAILABLE);
            assertThat(decision.fallback().kind()).isEqualTo(QuotaDecision.Fallback.Kind.LOCAL);
            assertThat(decision.fallback().reason()).endsWith("this instance holds no share of free-burst");
        });
    }

    @Test
    void withoutRanks_eachInstanceTakesItsPartRoundedDown_neverMoreThanTheLimit() {
        List<QuotaService> fleet = fleet(4, false, greedy("burst", 10, 10, Duration.ofHours(1)));
        store.failing = true;

        assertThat(admitted(fleet, Customer.of("alice", "free"), 5)).as("2 on each of 4").isEqualTo(8);
        assertThat(admitted(fleet(16, false, greedy("burst", 10, 10, Duration.ofHours(1))),
                Customer.of("bob", "free"), 5)).as("none has a whole token").isZero();
    }

    @Test
    void refill_isDividedAsARate_withoutRounding() {
        // 10 a minute over 4 instances: 2.5 a minute each, 10 a minute in all
        List<QuotaService> fleet = fleet(4, true, greedy("burst", 10, 10, Duration.ofMinutes(1)));
        store.failing = true;
        Customer alice = Customer.of("alice", "free");
        assertThat(admitted(fleet, alice, 5)).as("the burst: 3, 3, 2, 2").isEqualTo(10);

        int refilled = 0;
        for (int step = 0; step < 5; step++) { // two minutes, in steps of 24 s: one token on each instance
            clock.advance(Duration.ofSeconds(24));
            refilled += admitted(fleet, alice, 10);
        }

        assertThat(refilled).as("two minutes at 10 a minute").isEqualTo(20);
    }

    /** What broke: a count that threw (a grid whose own member is gone) reached the caller. */
    @Test
    void instanceCountThatThrows_keepsTheLastCount_andEveryDecisionIsAnswered() {
        QuotaService service = service();
        store.failing = true;
        assertThat(admitted(service, Customer.of("alice", "free"), 1)).isEqualTo(1);
        count.set(() -> {
            throw new IllegalStateException("this member has left the cluster");
        });

        int admitted = admitted(service, Customer.of("bob", "free"), 30);

        assertThat(admitted).as("still 40 over the last count, 4").isEqualTo(10);
    }
}
