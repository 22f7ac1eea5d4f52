package dev.quota.core;

import static dev.quota.core.Configs.config;
import static dev.quota.core.Configs.greedy;
import static dev.quota.core.Configs.plan;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.QuotaDecision.Fallback.Kind;
import dev.quota.core.resilience.CircuitBreakerStore;
import dev.quota.core.store.ForwardingStore;
import dev.quota.core.store.InMemoryStore;
import dev.quota.testkit.Await;
import dev.quota.testkit.MutableClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** What the admin view shows of the store: the breaker, an established outage, the decisions made instead. */
class StoreHealthTest {

    private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
    private volatile boolean down;

    @Test
    void aStoreGoingDown_showsFirstAsFailedCalls_thenAsAnEstablishedOutage_withTheDecisionsMadeInstead() {
        ForwardingStore store = new ForwardingStore(InMemoryStore.builder().clock(clock).build()) {
            @Override
            protected void before(String operation) {
                if (down) {
                    throw new QuotaStoreException("no answer (test)");
                }
            }
        };
        CircuitBreakerStore breaker = CircuitBreakerStore.builder(store).probeInterval(Duration.ofMillis(10))
                .healthCheck(() -> {
                    if (down) {
                        throw new QuotaStoreException("ping: no answer (test)");
                    }
                }).build();
        try (QuotaService service = QuotaService.builder().store(breaker).clock(clock)
                .config(config(plan("free", greedy("burst", 40, 40, Duration.ofHours(1))))).build()) {
            Customer alice = Customer.of("alice", "free");
            service.decide(alice, null);
            assertThat(service.admin().store()).isEqualTo(new StoreHealth(
                    breaker.describe(), CircuitBreakerStore.State.CLOSED,
                    false, java.util.Map.of()));

            down = true;
            for (int i = 0; i < 5; i++) {
                assertThat(service.decide(alice, null).fallback().kind()).isEqualTo(Kind.SHED);
            }
            Await.until(Duration.ofSeconds(10), () -> service.admin().store().outage(), () -> "the outage established");
            QuotaDecision local = service.decide(alice, null);

            assertThat(local.fallback().kind()).isEqualTo(Kind.LOCAL);
            StoreHealth health = service.admin().store();
            assertThat(health.breaker()).isEqualTo(CircuitBreakerStore.State.OPEN);
            assertThat(health.fallbackDecisions()).containsEntry(Kind.SHED, 5L).containsEntry(Kind.LOCAL, 1L)
                    .containsEntry(Kind.OPEN, 0L).containsEntry(Kind.CLOSED, 0L);
        }
    }
}
