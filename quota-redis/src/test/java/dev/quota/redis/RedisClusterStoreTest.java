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

    /**
     * A resharding under load: two instances (two clients), eight threads, decide for 40 customers
     * whose buckets share one slot while that slot moves to another master, first key by key (the
     * old master answers {@code ASK} for a key that has left), then for good ({@code MOVED}). No
     * decision fails, and each customer gets exactly its limit.
     */
    @Test
    void aSlotMovedUnderLoad_noDecisionFails_andEveryCustomerGetsExactlyItsLimit() throws Exception {
        RedisClusterTopology cluster = redis.clusterTopology();
        int capacity = 30;
        int asks = 45; // each customer asks more than its limit, and too few times a second to be leased
        var config = OnePlan.config("free", capacity, Refill.greedy(1, Duration.ofHours(1)), FailurePolicy.CLOSED);
        List<Customer> customers = customersInOneSlot(40);
        QuotaStore second = newStore(clock);
        QuotaService a = QuotaService.builder().store(store).clock(clock).keyPrefix("reshard").config(config).build();
        QuotaService b = QuotaService.builder().store(second).clock(clock).keyPrefix("reshard").config(config).build();
        Map<String, java.util.concurrent.atomic.AtomicInteger> allowed = new java.util.concurrent.ConcurrentHashMap<>();
        for (Customer customer : customers) {
            allowed.put(customer.id(), new java.util.concurrent.atomic.AtomicInteger());
        }
        assertThat(a.decide(customers.get(0), null).allowed()).isTrue();
        allowed.get(customers.get(0).id()).incrementAndGet();
        String key = onlyKey(cluster, "reshard:*");
        int slot = RedisClusterTopology.slot(key);
        assertThat(slot).as("the slot of every chosen customer's bucket").isEqualTo(slotOf(customers.get(0)));
        RedisServer from = cluster.masterForSlot(slot);
        RedisServer to = cluster.masters().stream().filter(master -> master != from).findFirst().orElseThrow();
        try (RespClient resp = RespClient.connect(from.host(), from.port())) {
            resp.command("CONFIG", "RESETSTAT");
        }

        // the first 20 asks of each customer (all admitted) run while the slot moves; the rest (10
        // more admitted, then refused) only once it has moved, so decisions that must go to Redis
        // certainly meet the slot at its new master, whatever the machine's speed
        int whileMoving = 20;
        java.util.concurrent.BlockingQueue<Customer> work = new java.util.concurrent.LinkedBlockingQueue<>();
        for (int i = 0; i < whileMoving; i++) {
            work.addAll(customers);
        }
        work.remove(customers.get(0)); // asked once already
        List<Customer> afterMove = new ArrayList<>();
        for (int i = whileMoving; i < asks; i++) {
            afterMove.addAll(customers);
        }
        int total = work.size() + afterMove.size();
        java.util.concurrent.atomic.AtomicInteger done = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.CountDownLatch moved = new java.util.concurrent.CountDownLatch(1);
        List<String> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        int threads = 8;
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
        long redirects;
        try {
            List<java.util.concurrent.Future<?>> running = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                QuotaService instance = t % 2 == 0 ? a : b;
                running.add(pool.submit(() -> {
                    for (Customer customer = next(work, moved); customer != null; customer = next(work, moved)) {
                        QuotaDecision decision = instance.decide(customer, null);
                        if (decision.outcome() == QuotaDecision.Outcome.ALLOWED) {
                            allowed.get(customer.id()).incrementAndGet();
                        } else if (decision.outcome() != QuotaDecision.Outcome.REJECTED) {
                            failures.add(decision.outcome() + " " + decision);
                        }
                        done.incrementAndGet();
                    }
                    return null;
                }));
            }
            while (done.get() < total / 4) {
                Thread.onSpinWait(); // a quarter decided: the slot moves while the rest are
            }
            int before = done.get();
            moveSlot(cluster, slot, from, to);
            int during = done.get() - before;
            work.addAll(afterMove);
            moved.countDown();
            for (java.util.concurrent.Future<?> future : running) {
                future.get();
            }
            System.out.println("cluster: decisions while the slot moved: " + during);
            try (RespClient resp = RespClient.connect(from.host(), from.port())) {
                redirects = resp.info("errorstats").lines()
                        .filter(line -> line.startsWith("errorstat_MOVED") || line.startsWith("errorstat_ASK"))
                        .mapToLong(line -> Long.parseLong(line.substring(line.indexOf("count=") + 6)))
                        .sum();
            }
        } finally {
            pool.shutdownNow();
            a.close();
            b.close();
            second.close();
            moveSlot(cluster, slot, to, from);
        }

        assertThat(failures).as("decisions that failed while the slot moved").isEmpty();
        assertThat(done.get()).isEqualTo(total);
        assertThat(redirects).as("MOVED and ASK answers of the slot's old master").isPositive();
        for (Customer customer : customers) {
            assertThat(allowed.get(customer.id())).as("admitted for %s", customer.id()).hasValue(capacity);
        }
    }

    /** The next customer to decide: from {@code work}, which gets its last part once {@code moved} opens; null when all are done. */
    private static @org.jspecify.annotations.Nullable Customer next(java.util.concurrent.BlockingQueue<Customer> work,
                                                                    java.util.concurrent.CountDownLatch moved)
            throws InterruptedException {
        Customer customer = work.poll();
        if (customer == null) {
            moved.await();
            customer = work.poll();
        }
        return customer;
    }

    /** {@code n} customers of plan free whose buckets share one cluster slot. */
    private static List<Customer> customersInOneSlot(int n) {
        List<Customer> out = new ArrayList<>();
        int slot = -1;
        for (int i = 0; out.size() < n; i++) {
            Customer customer = Customer.of("resharded-" + i, "free");
            int its = slotOf(customer);
            if (slot < 0) {
                slot = its;
            }
            if (its == slot) {
                out.add(customer);
            }
        }
        return out;
    }

    /** The cluster slot of a customer's buckets: their hash tag is {@code c.} and the customer's key part. */
    private static int slotOf(Customer customer) {
        return RedisClusterTopology.slot("{c." + dev.quota.core.internal.Hashes.keyPart(customer.kind().name(),
                customer.id()) + "}");
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
