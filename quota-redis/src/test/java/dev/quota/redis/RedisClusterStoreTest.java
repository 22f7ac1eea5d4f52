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
import java.util.ArrayList;
import java.util.List;
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

    @Test
    void aSlotMovedToAnotherMaster_theScriptFollowsTheRedirect_andTheCustomerKeepsItsCount() {
        RedisClusterTopology cluster = redis.clusterTopology();
        QuotaService service = QuotaService.builder().store(store).clock(clock).keyPrefix("moved")
                .config(OnePlan.config("free", 3, Refill.greedy(1, Duration.ofHours(1)), FailurePolicy.CLOSED)).build();
        Customer customer = Customer.of("moved", "free");
        assertThat(admitted(service, customer, 2)).isEqualTo(2); // the second on the connection held for its master
        String key = onlyKey(cluster, "moved:*");
        int slot = RedisClusterTopology.slot(key);
        RedisServer from = cluster.masterForSlot(slot);
        RedisServer to = cluster.masters().stream().filter(master -> master != from).findFirst().orElseThrow();

        moveSlot(cluster, slot, from, to);
        try {
            // the client still routes the slot to the old master until its next topology scan: that
            // master answers MOVED without running the command, and it goes again to the new one
            assertThat(((RedisStore) store).engine().read(key)).as("the bucket read after the move").isNotNull();
            assertThat(admitted(service, customer, 2)).isEqualTo(1);
            try (RespClient resp = RespClient.connect(to.host(), to.port())) {
                assertThat(resp.command("EXISTS", key)).isEqualTo(1L);
                assertThat(resp.commandStats().getOrDefault("evalsha", 0L)).isPositive();
            }
            try (RespClient resp = RespClient.connect(from.host(), from.port())) {
                System.out.println("cluster: redirects answered by the slot's old master: "
                        + resp.info("errorstats").lines().filter(line -> line.startsWith("errorstat_MOVED")).toList());
            }
        } finally {
            moveSlot(cluster, slot, to, from);
        }
    }

    /** The one key matching {@code pattern} on any master. */
    private static String onlyKey(RedisClusterTopology cluster, String pattern) {
        List<String> keys = new ArrayList<>();
        for (RedisServer master : cluster.masters()) {
            try (RespClient resp = RespClient.connect(master.host(), master.port())) {
                for (Object key : (List<?>) resp.command("KEYS", pattern)) {
                    keys.add((String) key);
                }
            }
        }
        assertThat(keys).hasSize(1);
        return keys.get(0);
    }

    /** Moves {@code slot} and its keys from one master to another, as a resharding does, and tells every master. */
    private static void moveSlot(RedisClusterTopology cluster, int slot, RedisServer from, RedisServer to) {
        try (RespClient source = RespClient.connect(from.host(), from.port());
             RespClient target = RespClient.connect(to.host(), to.port())) {
            String fromId = (String) source.command("CLUSTER", "MYID");
            String toId = (String) target.command("CLUSTER", "MYID");
            target.command("CLUSTER", "SETSLOT", Integer.toString(slot), "IMPORTING", fromId);
            source.command("CLUSTER", "SETSLOT", Integer.toString(slot), "MIGRATING", toId);
            for (Object key : (List<?>) source.command("CLUSTER", "GETKEYSINSLOT", Integer.toString(slot), "1000")) {
                source.command("MIGRATE", to.host(), Integer.toString(to.port()), (String) key, "0", "5000");
            }
            for (RedisServer master : cluster.masters()) {
                try (RespClient resp = RespClient.connect(master.host(), master.port())) {
                    resp.command("CLUSTER", "SETSLOT", Integer.toString(slot), "NODE", toId);
                }
            }
        }
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
