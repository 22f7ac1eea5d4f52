package dev.quota.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.internal.Hashes;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

class BucketLayoutTest {

    private final Plan plan = new Plan("free", List.of(new Limit("burst", 10, Refill.greedy(10, Duration.ofSeconds(1)))),
            FailurePolicy.OPEN);
    private final QuotaConfig config = QuotaConfig.builder().plan(plan).build();
    private final BucketLayout layout = new BucketLayout("quota", Clock.fixed(Instant.EPOCH, ZoneOffset.UTC));

    private String planKey(Customer customer) {
        return layout.plan(config, customer, plan, null, LocalShare.WHOLE).get(0).key().value();
    }

    @Test
    void planKey_isTheHashOfKindAndId_pinned() {
        assertThat(planKey(Customer.of("alice", "free"))).isEqualTo("quota:{c.KZvfLzSRJF8u9Nn_K2-VGA}:p");
    }

    @Test
    void customerKeys_stayRight_whenMoreCustomersThanTheKeyPartTableHoldsShareItsSlots() {
        // 20,000 customers in a table of 4,096 slots: most slots change hands, twice over
        for (int pass = 0; pass < 2; pass++) {
            for (int i = 0; i < 20_000; i++) {
                Customer customer = Customer.of("c" + i, "free");
                assertThat(planKey(customer)).isEqualTo("quota:{c." + Hashes.keyPart("ACCOUNT", "c" + i) + "}:p");
            }
        }
    }

    @Test
    void keyPart_dependsOnKindAndId_notOnPlanOrMultiplier() {
        Customer alice = Customer.of("alice", "free");
        String key = planKey(alice);
        assertThat(planKey(new Customer("alice", "free", 3.0))).isEqualTo(key);
        assertThat(planKey(alice.withPlan("free"))).isEqualTo(key);
        assertThat(planKey(new Customer("alice", "free", 1.0, Customer.Kind.PRINCIPAL))).isNotEqualTo(key)
                .isEqualTo("quota:{c." + Hashes.keyPart("PRINCIPAL\u0000alice") + "}:p");
    }
}
