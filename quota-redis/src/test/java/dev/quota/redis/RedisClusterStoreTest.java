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
            assertThat(admitted(service, customer, 4)).as("admitted for %s", customer.id()).isEqualTo(3);
        }

        Map<String, Long> keys = cluster.keysPerMaster();
        System.out.println("cluster: bucket keys per master for 300 customers: " + keys);
        assertThat(keys.values()).hasSize(3).allSatisfy(count -> assertThat(count).isPositive());
        assertThat(keys.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(300);
    }

    @Test
    void scriptsFlushedOnEveryMaster_eachSendsItsTextOnce_andEveryCustomerStillGetsExactlyItsLimit() {
        RedisClusterTopology cluster = redis.clusterTopology();
        QuotaService service = QuotaService.builder().store(store).clock(clock)
                .config(OnePlan.config("free", 3, Refill.greedy(1, Duration.ofHours(1)), FailurePolicy.CLOSED)).build();
        int customers = 90;
        for (int c = 0; c < customers; c++) {
            assertThat(service.decide(Customer.of("flushed-" + c, "free"), null).allowed()).isTrue();
        }
        for (RedisServer master : cluster.masters()) {
            try (RespClient resp = RespClient.connect(master.host(), master.port())) {
                resp.command("SCRIPT", "FLUSH");
                resp.command("CONFIG", "RESETSTAT");
            }
        }

        for (int c = 0; c < customers; c++) {
            Customer customer = Customer.of("flushed-" + c, "free");
            assertThat(admitted(service, customer, 3)).as("admitted after the first for %s", customer.id())
                    .isEqualTo(2);
        }

        long evalsha = 0;
        for (RedisServer master : cluster.masters()) {
            try (RespClient resp = RespClient.connect(master.host(), master.port())) {
                Map<String, Long> calls = resp.commandStats();
                assertThat(calls.get("eval")).as("EVAL on %s:%d", master.host(), master.port()).isEqualTo(1L);
                evalsha += calls.getOrDefault("evalsha", 0L);
            }
        }
        // two takes a customer go to Redis (the third is refused on the states Redis just confirmed),
        // each an EVALSHA: one per master answered NOSCRIPT and went again as that EVAL
        assertThat(evalsha).isEqualTo(2L * customers);
    }

    /** How many of {@code decisions} decisions in a row admitted {@code customer}; none failed. */
    private static int admitted(QuotaService service, Customer customer, int decisions) {
        int allowed = 0;
        for (int i = 0; i < decisions; i++) {
            QuotaDecision decision = service.decide(customer, null);
            assertThat(decision.outcome()).isIn(QuotaDecision.Outcome.ALLOWED, QuotaDecision.Outcome.REJECTED);
            allowed += decision.allowed() ? 1 : 0;
        }
        return allowed;
    }
}
