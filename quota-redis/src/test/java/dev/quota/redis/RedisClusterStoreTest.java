package dev.quota.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Customer;
import dev.quota.core.FailurePolicy;
import dev.quota.core.QuotaDecision;
import dev.quota.core.QuotaService;
import dev.quota.core.Refill;
import dev.quota.core.resilience.OnePlan;
import dev.quota.core.spi.QuotaStore;
import dev.quota.core.store.QuotaStoreContract;
import dev.quota.testkit.MutableClock;
import dev.quota.testkit.RedisClusterTopology;
import dev.quota.testkit.RedisExtension;
import dev.quota.testkit.RedisServer;
import dev.quota.testkit.RespClient;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.config.ReadMode;

/** The store contract against a three-master Redis Cluster. */
class RedisClusterStoreTest extends QuotaStoreContract {

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.cluster();

    @Override
    protected QuotaStore newStore(MutableClock clock) {
        return RedisStore.builder().cluster(redis.addresses()).clock(clock).build();
    }

    @Test
    void builder_readsFromMastersOnly() {
        RedisStore redisStore = (RedisStore) store;

        assertThat(redisStore.client().getConfig().useClusterServers().getReadMode()).isEqualTo(ReadMode.MASTER);
        redisStore.ping();
    }

    @Test
    void threeHundredCustomers_spreadOverEveryMaster_eachGetsExactlyItsLimit() {
        RedisClusterTopology cluster = redis.clusterTopology();
        for (RedisServer master : cluster.masters()) {
            try (RespClient resp = RespClient.connect(master.host(), master.port())) {
                resp.flushAll();
            }
        }
        // a service that does not own the store: the contract closes it after the test
        QuotaService service = QuotaService.builder().store(store).clock(clock)
                .config(OnePlan.config("free", 3, Refill.greedy(1, Duration.ofHours(1)), FailurePolicy.CLOSED)).build();

        for (int c = 0; c < 300; c++) {
            Customer customer = Customer.of("customer-" + c, "free");
            int allowed = 0;
            for (int i = 0; i < 4; i++) {
                QuotaDecision decision = service.decide(customer, null);
                assertThat(decision.outcome()).isIn(QuotaDecision.Outcome.ALLOWED, QuotaDecision.Outcome.REJECTED);
                allowed += decision.allowed() ? 1 : 0;
            }
            assertThat(allowed).as("admitted for %s", customer.id()).isEqualTo(3);
        }

        Map<String, Long> keys = cluster.keysPerMaster();
        System.out.println("cluster: bucket keys per master for 300 customers: " + keys);
        assertThat(keys.values()).hasSize(3).allSatisfy(count -> assertThat(count).isPositive());
        assertThat(keys.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(300);
    }
}
