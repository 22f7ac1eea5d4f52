package dev.quota.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Customer;
import dev.quota.core.FailurePolicy;
import dev.quota.core.HandSweptLeases;
import dev.quota.core.Limit;
import dev.quota.core.Mode;
import dev.quota.core.Plan;
import dev.quota.core.QuotaConfig;
import dev.quota.core.QuotaDecision;
import dev.quota.core.QuotaService;
import dev.quota.core.Refill;
import dev.quota.core.Rule;
import dev.quota.core.TokenLeasing;
import dev.quota.core.store.InMemoryStore;
import dev.quota.testkit.MutableClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code quota.leased.tokens}, {@code quota.leased.batches} and {@code quota.leased.tokens.held}
 * on a real in-JVM store, time moved by hand and batches swept by the test. Plan {@code big}:
 * 10,000 an hour, refilled all at once; the leasing defaults: hot at 50 decisions a second, 500 ms
 * batches, so the 50th decision takes a batch of ceil(50 x 0.5) = 25.
 */
class LeasedTokenMetersTest {

    private static final Customer ACME = Customer.of("acme", "big");

    private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
    private final InMemoryStore store = InMemoryStore.builder().clock(clock).build();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final MicrometerQuotaListener listener = new MicrometerQuotaListener(registry);
    private final QuotaService service = HandSweptLeases.byHand(QuotaService.builder().store(store).clock(clock)
            .config(QuotaConfig.builder()
                    .plan(Plan.of("big", List.of(new Limit("hourly", 10_000, Refill.interval(10_000, Duration.ofHours(1)))),
                            FailurePolicy.CLOSED))
                    .rule(Rule.builder("exports")
                            .shared(List.of(new Limit("shared", 10_000, Refill.interval(10_000, Duration.ofHours(1)))))
                            .build())
                    .rule(Rule.builder("audits").shared(List.of(new Limit("shared", 100, Refill.greedy(100,
                            Duration.ofSeconds(1))))).mode(Mode.SHADOW).build())
                    .customer(ACME).build())
            .listener(listener)).build();

    @AfterEach
    void close() {
        service.close();
        store.close();
    }

    private void decide(int times) {
        for (int i = 0; i < times; i++) {
            assertThat(service.decide(ACME, null).outcome()).isEqualTo(QuotaDecision.Outcome.ALLOWED);
        }
    }

    @Test
    void leasedTokens_countTheBatchTaken_whatExpiredAndWentBack_andTheGaugeWhatIsHeld() {
        listener.registerLeasing(service);
        assertThat(tokens("big-hourly", "taken")).as("registered at zero").isZero();
        assertThat(tokens("exports-shared", "returned")).as("a rule's shared bucket too").isZero();
        assertThat(registry.find("quota.leased.tokens").tag("policy", "audits-shared").counter())
                .as("a shadow limit is never leased").isNull();
        assertThat(held()).isZero();

        decide(49);
        assertThat(tokens("big-hourly", "taken")).as("cold").isZero();

        decide(1); // the 50th in this second: a batch of 25 with it
        assertThat(tokens("big-hourly", "taken")).isEqualTo(25);
        assertThat(batches("big-hourly")).isEqualTo(1);
        assertThat(held()).isEqualTo(25);

        decide(5); // served from the batch
        assertThat(held()).isEqualTo(20);

        HandSweptLeases.sweep(service);
        assertThat(tokens("big-hourly", "expired")).as("not due yet").isZero();

        clock.advance(Duration.ofMillis(500));
        HandSweptLeases.sweep(service);

        assertThat(tokens("big-hourly", "expired")).isEqualTo(20);
        assertThat(tokens("big-hourly", "returned")).isEqualTo(20);
        assertThat(tokens("big-hourly", "lost")).isZero();
        assertThat(tokens("big-hourly", "taken")).isEqualTo(25);
        assertThat(batches("big-hourly")).isEqualTo(1);
        assertThat(held()).isZero();
        assertThat(service.leasedTokens()).isEqualTo(new TokenLeasing.Counts(1, 25, 5, 20, 1, 0, 0));
    }

    @Test
    void registerLeasing_withLeasingOff_registersTheGaugeOnly() {
        try (QuotaService off = QuotaService.builder().store(store).clock(clock).config(service.config())
                .tokenLeasing(TokenLeasing.OFF).build()) {
            SimpleMeterRegistry meters = new SimpleMeterRegistry();
            new MicrometerQuotaListener(meters).registerLeasing(off);
            assertThat(meters.get("quota.leased.tokens.held").gauge().value()).isZero();
            assertThat(meters.find("quota.leased.tokens").counters()).isEmpty();
        }
    }

    private double tokens(String policy, String event) {
        return registry.get("quota.leased.tokens").tag("policy", policy).tag("event", event).counter().count();
    }

    private double batches(String policy) {
        return registry.get("quota.leased.batches").tag("policy", policy).counter().count();
    }

    private double held() {
        return registry.get("quota.leased.tokens.held").gauge().value();
    }
}
