package dev.quota.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Concurrency;
import dev.quota.core.Customer;
import dev.quota.core.FailurePolicy;
import dev.quota.core.Limit;
import dev.quota.core.Plan;
import dev.quota.core.QuotaConfig;
import dev.quota.core.QuotaDecision;
import dev.quota.core.QuotaService;
import dev.quota.core.Refill;
import dev.quota.core.Rule;
import dev.quota.core.store.InMemoryStore;
import dev.quota.testkit.MutableClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code quota.leases.held}: registered at zero per in-flight policy, up while requests run, down as they end. */
class LeasesHeldGaugeTest {

    private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @Test
    void leasesHeld_isRegisteredAtZeroPerPolicy_countsRunningRequests_andDropsOncePerRelease() {
        Plan free = Plan.of("free", List.of(new Limit("burst", 100, Refill.greedy(100, Duration.ofHours(1)))),
                FailurePolicy.CLOSED).withConcurrency(Concurrency.of(5));
        Rule imports = Rule.builder("imports").concurrency(Concurrency.of(2)).build();
        QuotaConfig config = QuotaConfig.builder().version(1).plan(free).rule(imports).build();
        MicrometerQuotaListener listener = new MicrometerQuotaListener(registry);
        listener.registerInFlight(config);
        assertThat(held("free-in-flight")).isZero();
        assertThat(held("imports-in-flight")).isZero();

        try (QuotaService service = QuotaService.builder().store(InMemoryStore.builder().clock(clock).build())
                .config(config).clock(clock).listener(listener).build()) {
            Customer alice = Customer.of("alice", "free");
            QuotaDecision first = service.decide(alice, "imports");
            QuotaDecision second = service.decide(alice, "imports");
            QuotaDecision refused = service.decide(alice, "imports");
            QuotaDecision plain = service.decide(alice, null);
            assertThat(refused.allowed()).isFalse();
            assertThat(held("free-in-flight")).isEqualTo(3);
            assertThat(held("imports-in-flight")).isEqualTo(2);

            service.release(first);
            service.release(first);
            service.release(refused);
            assertThat(held("free-in-flight")).isEqualTo(2);
            assertThat(held("imports-in-flight")).isEqualTo(1);

            service.release(second);
            service.release(plain);
            assertThat(held("free-in-flight")).isZero();
            assertThat(held("imports-in-flight")).isZero();
        }
    }

    private double held(String policy) {
        return registry.get("quota.leases.held").tag("policy", policy).gauge().value();
    }
}
