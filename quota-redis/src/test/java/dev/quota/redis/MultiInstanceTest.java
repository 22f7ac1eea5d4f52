package dev.quota.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Customer;
import dev.quota.core.QuotaConfig;
import dev.quota.core.QuotaDecision;
import dev.quota.core.QuotaService;
import dev.quota.core.spi.QuotaStore;
import dev.quota.core.store.MultiInstanceContract;
import dev.quota.testkit.MutableClock;
import dev.quota.testkit.RedisExtension;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Three instances, each with its own Redisson client and service, sharing one real Redis: the
 * limits hold for the fleet, not per instance.
 */
class MultiInstanceTest extends MultiInstanceContract {

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    @Override
    protected QuotaStore newInstanceStore(int instance, MutableClock clock) {
        return RedisStore.builder().uri(redis.uri()).clock(clock).build();
    }

    @Override
    protected int instanceCount() {
        return 3;
    }

    @Test
    void reloadUnderLoad_noDecisionFails_andUsageIsKept() throws Exception {
        List<QuotaService> instances = startInstances(config(1_000, List.of(), List.of()));
        Customer customer = Customer.of("reload-" + UUID.randomUUID(), "free");
        QuotaConfig bigger = config(2_000, List.of(), List.of()).withVersion(2);

        List<QuotaDecision> decisions = runConcurrently(400, i -> () -> {
            if (i == 200) {
                instances.forEach(s -> s.reload(bigger));
            }
            return instances.get(i % instances.size()).decide(customer, null);
        });

        assertThat(decisions).allMatch(QuotaDecision::allowed);
        // the instances lease batches of this hot key: closed, they give back what those still hold
        for (QuotaService instance : List.copyOf(instances)) {
            instance.close();
            instances.remove(instance);
        }
        try (QuotaService reader = QuotaService.builder().store(newInstanceStore(0, clock)).config(bigger)
                .clock(clock).build()) {
            long remaining = reader.admin().standing(customer).get(0).remaining();
            // 400 used; after the reload the capacity is 2000 and usage was kept
            assertThat(remaining).isEqualTo(1_600);
        }
    }
}
