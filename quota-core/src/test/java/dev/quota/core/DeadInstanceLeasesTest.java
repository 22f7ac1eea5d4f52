package dev.quota.core;

import static dev.quota.core.Configs.config;
import static dev.quota.core.Configs.greedy;
import static dev.quota.core.Configs.plan;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.spi.LeaseHolder;
import dev.quota.core.spi.QuotaStore;
import dev.quota.core.spi.Take;
import dev.quota.core.store.ForwardingStore;
import dev.quota.core.store.InMemoryStore;
import dev.quota.testkit.MutableClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Two instances of a service (two {@link QuotaService}s on one store) share a customer's in-flight
 * limit; each takes its leases as its {@link LeaseHolder}. Once the survivor's holder knows the
 * other dead, the other's leases come back at the survivor's next decision, in its one store call,
 * long before their deadline; a live instance's never do.
 */
class DeadInstanceLeasesTest {

    private static final long A = LeaseHolder.tagOf("instance-a");
    private static final long B = LeaseHolder.tagOf("instance-b");

    private final MutableClock clock = MutableClock.at("2026-12-03T10:00:00Z");
    private final InMemoryStore shared = InMemoryStore.builder().clock(clock).build();
    private final Customer alice = Customer.of("alice", "free");
    private final AtomicInteger consumes = new AtomicInteger();
    private final List<List<Take>> takes = new ArrayList<>();

    private QuotaService instance(Supplier<LeaseHolder> holder) {
        QuotaStore counted = new ForwardingStore(shared) {
            @Override
            protected void before(String operation) {
            }

            @Override
            public List<dev.quota.core.spi.ConsumeResult> tryConsume(List<Take> consumed) {
                consumes.incrementAndGet();
                takes.add(consumed);
                return delegate.tryConsume(consumed);
            }
        };
        Plan free = plan("free", greedy("burst", 1_000, 1_000, Duration.ofHours(1)))
                .withConcurrency(Concurrency.of(5));
        return QuotaService.builder().store(counted).config(config(free)).clock(clock).leaseHolder(holder).build();
    }

    private static int admitted(QuotaService service, Customer customer, int tries) {
        int admitted = 0;
        for (int i = 0; i < tries; i++) {
            if (service.decide(customer, null).allowed()) {
                admitted++;
            }
        }
        return admitted;
    }

    @Test
    void leasesOfAnInstanceKnownDead_comeBackAtTheNextDecision_exactlyAsManyAsItHeld() {
        QuotaService a = instance(() -> new LeaseHolder(A, Set.of()));
        AtomicReference<LeaseHolder> bKnows = new AtomicReference<>(new LeaseHolder(B, Set.of()));
        QuotaService b = instance(bKnows::get);
        assertThat(admitted(a, alice, 3)).isEqualTo(3);
        assertThat(admitted(b, alice, 2)).isEqualTo(2);
        assertThat(b.decide(alice, null).allowed()).as("five running").isFalse();

        clock.advance(Duration.ofSeconds(10)); // A is killed; the registry declares it dead
        bKnows.set(new LeaseHolder(B, Set.of(A)));
        consumes.set(0);

        assertThat(admitted(b, alice, 10)).as("A's three, not B's two").isEqualTo(3);
        assertThat(consumes).as("one store call per decision").hasValue(10);
    }

    @Test
    void leasesOfALiveInstance_areKeptUntilTheirDeadline_whateverElseIsKnownDead() {
        QuotaService a = instance(() -> new LeaseHolder(A, Set.of()));
        QuotaService b = instance(() -> new LeaseHolder(B, Set.of(LeaseHolder.tagOf("instance-c"))));
        assertThat(admitted(a, alice, 5)).isEqualTo(5);

        clock.advance(Concurrency.DEFAULT_LEASE_TIMEOUT.minusNanos(1));
        assertThat(admitted(b, alice, 3)).as("a nanosecond before A's deadline").isZero();
        clock.advance(Duration.ofNanos(1));
        assertThat(admitted(b, alice, 10)).as("at the deadline").isEqualTo(5);
    }

    @Test
    void onlyTheLeaseSetsTake_carriesTheHolder_theRateLimitsTakesAreUnchanged() {
        LeaseHolder holder = new LeaseHolder(A, Set.of(B));
        QuotaService a = instance(() -> holder);

        a.decide(alice, null);

        List<Take> decided = takes.get(takes.size() - 1);
        assertThat(decided).hasSize(2);
        assertThat(decided).filteredOn(take -> take.spec().leases()).extracting(Take::holder).containsExactly(holder);
        assertThat(decided).filteredOn(take -> !take.spec().leases()).extracting(Take::holder)
                .containsExactly(LeaseHolder.NONE);
    }

    @Test
    void aHolderSupplierThatThrows_takesLeasesWithoutAHolder_heldUntilTheirDeadline() {
        QuotaService a = instance(() -> {
            throw new IllegalStateException("registry closed");
        });
        QuotaService b = instance(() -> new LeaseHolder(B, Set.of(A)));

        assertThat(admitted(a, alice, 5)).isEqualTo(5);

        assertThat(admitted(b, alice, 3)).as("A's leases carry no tag: never freed early").isZero();
    }
}
