package dev.quota.core;

import static dev.quota.core.Configs.config;
import static dev.quota.core.Configs.greedy;
import static dev.quota.core.Configs.plan;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.store.ForwardingStore;
import dev.quota.core.store.InMemoryStore;
import dev.quota.testkit.MutableClock;
import java.time.Duration;
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
