package dev.quota.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quota.core.resilience.CircuitBreakerStore;
import dev.quota.core.resilience.OnePlan;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.LeaseHolder;
import dev.quota.core.spi.QuotaStore;
import dev.quota.core.spi.Take;
import dev.quota.core.store.ForwardingStore;
import dev.quota.core.store.InMemoryStore;
import dev.quota.testkit.MutableClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class QuotaStackTest {

    private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
    private final List<String> closed = new CopyOnWriteArrayList<>();
    private final QuotaConfig config = OnePlan.config("free", 3, Refill.greedy(3, Duration.ofHours(1)),
            FailurePolicy.LOCAL);

    private QuotaStore store() {
        return new ForwardingStore(InMemoryStore.builder().clock(clock).build()) {
            @Override
            protected void before(String operation) {
            }

            @Override
            public void close() {
                closed.add("store");
                super.close();
            }
        };
    }

    @Test
    void withAHealthCheck_theServiceDecidesThroughACircuitBreakerThatPingsTheStore() {
        AtomicInteger pings = new AtomicInteger();
        try (QuotaStack stack = QuotaStack.builder(store()).healthCheck(pings::incrementAndGet)
                .service(service -> service.config(config).clock(clock)).build()) {

            assertThat(stack.store()).isInstanceOf(CircuitBreakerStore.class);
            assertThat(stack.service().decide(Customer.of("alice", "free"), null).outcome())
                    .isEqualTo(QuotaDecision.Outcome.ALLOWED);
            assertThat(stack.service().admin().standing(Customer.of("alice", "free")).get(0).remaining()).isEqualTo(2);
        }
        assertThat(closed).containsExactly("store");
    }

    @Test
    void withoutAHealthCheck_theServiceDecidesWithTheStoreItself() {
        QuotaStore store = store();
        try (QuotaStack stack = QuotaStack.builder(store).service(service -> service.config(config)).build()) {
            assertThat(stack.store()).isSameAs(store);
        }
    }

    @Test
    void close_stopsTheCompanionsInOrder_thenTheServiceAndItsStore(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("quota.yaml"), "plans: {}\n");
        QuotaStack stack = QuotaStack.builder(store()).healthCheck(() -> { })
                .companion(() -> closed.add("registry"))
                .companion(() -> closed.add("metrics"))
                .service(service -> service.config(config).clock(clock))
                .watch(file, Duration.ofHours(1))
                .build();

        stack.close();

        assertThat(closed).containsExactly("registry", "metrics", "store");
    }

    @Test
    void failedBuild_closesTheCompanionsAndTheStoreItWasGiven() {
        QuotaStack.Builder stack = QuotaStack.builder(store()).healthCheck(() -> { })
                .companion(() -> closed.add("registry"))
                .service(service -> { }); // no config: the service cannot be built

        assertThatThrownBy(stack::build).isInstanceOf(NullPointerException.class).hasMessageContaining("config");
        assertThat(closed).containsExactly("registry", "store");
    }

    @Test
    void aLeaseHolder_reachesTheLeaseSetsTake_andOneSetInServiceSettingsIsNotReplaced() {
        List<Take> taken = new CopyOnWriteArrayList<>();
        QuotaStore store = new ForwardingStore(InMemoryStore.builder().clock(clock).build()) {
            @Override
            protected void before(String operation) {
            }

            @Override
            public List<ConsumeResult> tryConsume(List<Take> takes) {
                taken.addAll(takes);
                return super.tryConsume(takes);
            }
        };
        Plan free = Plan.of("free", List.of(new Limit("burst", 3, Refill.greedy(3, Duration.ofHours(1)))),
                FailurePolicy.CLOSED).withConcurrency(Concurrency.of(2));
        QuotaConfig leased = QuotaConfig.builder().version(1).plan(free).build();
        LeaseHolder byStack = new LeaseHolder(LeaseHolder.tagOf("stack"), Set.of());
        LeaseHolder bySettings = new LeaseHolder(LeaseHolder.tagOf("settings"), Set.of());
        try (QuotaStack stack = QuotaStack.builder(store).leaseHolder(() -> byStack)
                .service(service -> service.config(leased).clock(clock)).build();
             QuotaStack own = QuotaStack.builder(store)
                .service(service -> service.config(leased).clock(clock).leaseHolder(() -> bySettings)).build()) {
            stack.service().decide(Customer.of("alice", "free"), null);
            own.service().decide(Customer.of("bob", "free"), null);
        }

        assertThat(taken).filteredOn(take -> take.spec().leases()).extracting(Take::holder)
                .containsExactly(byStack, bySettings);
    }
}
