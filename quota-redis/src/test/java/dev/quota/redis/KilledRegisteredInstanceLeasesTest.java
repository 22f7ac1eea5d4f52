package dev.quota.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Customer;
import dev.quota.core.QuotaDecision;
import dev.quota.core.QuotaService;
import dev.quota.core.spi.LeaseHolder;
import dev.quota.testkit.Await;
import dev.quota.testkit.ChildJvm;
import dev.quota.testkit.MutableClock;
import dev.quota.testkit.RedisExtension;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Instances of a service in their own JVMs ({@link LeaseHolderProcess}), each with an
 * {@link InstanceRegistry} of the shipped defaults (heartbeat 1 s, time to live 3 s, margin 5 s)
 * wired as {@code leaseHolder}, hold a customer's leases on one real Redis; one is killed with
 * {@code kill -9}. Once the registry has declared it dead, its leases come back at the customer's
 * next request: exactly as many as it held, the live instance's still counting, long before their
 * lease timeout (the store's clock stands still, so no lease ever reaches its deadline here).
 */
class KilledRegisteredInstanceLeasesTest {

    private static final Instant KILLED_TOOK = Instant.parse("2026-12-03T10:00:00Z");
    private static final Instant SURVIVOR_TOOK = KILLED_TOOK.plusSeconds(30);

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    @TempDir
    Path logs;

    private final List<ChildJvm> processes = new ArrayList<>();

    @AfterEach
    void stopProcesses() throws InterruptedException {
        for (ChildJvm process : processes) {
            process.close();
        }
    }

    @Test
    void leasesOfAKilledInstance_comeBackOnceTheRegistryDeclaresItDead_theLiveInstancesNever() throws Exception {
        Customer customer = Customer.of("killed-" + UUID.randomUUID(), "free");
        Holder killed = holder(0, KILLED_TOOK, customer, 3);
        Holder survivor = holder(1, SURVIVOR_TOOK, customer, 2);

        MutableClock clock = MutableClock.at(SURVIVOR_TOOK); // stands still: no lease reaches its deadline
        RedisStore store = RedisStore.builder().uri(redis.uri()).clock(clock).build();
        try (InstanceRegistry registry = InstanceRegistry.builder(store.client()).build();
             QuotaService service = QuotaService.builder().store(store).config(LeaseHolderProcess.config())
                     .clock(clock).liveInstances(registry::liveInstances, registry::rank)
                     .leaseHolder(registry::leaseHolder).build()) {
            QuotaDecision sixth = service.decide(customer, null);
            assertThat(sixth.outcome()).as("five held by the two processes").isEqualTo(QuotaDecision.Outcome.REJECTED);
            assertThat(sixth.violated().policy()).isEqualTo("free-in-flight");

            assertThat(killed.process.kill()).as("killed").isTrue();
            long killedAt = System.nanoTime();

            // decide while the registry learns: nothing is admitted before it knows the instance dead
            long tag = LeaseHolder.tagOf(killed.id);
            int[] admitted = {0};
            int[] admittedNotKnowingDead = {0};
            Await.until(Duration.ofSeconds(60), () -> {
                boolean knewDead = registry.leaseHolder().deadTags().contains(tag);
                if (service.decide(customer, null).allowed()) {
                    admitted[0]++;
                    // the dead set only grows: not known after the decision, not known during it
                    admittedNotKnowingDead[0] += registry.leaseHolder().deadTags().contains(tag) ? 0 : 1;
                }
                return knewDead;
            }, () -> "the registry to declare " + killed.id + " dead");
            assertThat(admittedNotKnowingDead[0]).as("admitted before the registry knew").isZero();
            long knownAfterMillis = Duration.ofNanos(System.nanoTime() - killedAt).toMillis();
            for (int i = 0; i < 10; i++) {
                if (service.decide(customer, null).allowed()) {
                    admitted[0]++;
                }
            }

            assertThat(admitted[0]).as("the killed instance's three, not the survivor's two").isEqualTo(3);
            assertThat(registry.leaseHolder().deadTags()).doesNotContain(LeaseHolder.tagOf(survivor.id));
            assertThat(store.client().getScoredSortedSet("quota:instances").size()).as("the survivor and this one")
                    .isEqualTo(2);
            // the figure operations.md publishes: time to live 3 s + margin 5 s + up to two heartbeats
            System.out.println("killed instance's leases free " + knownAfterMillis + " ms after kill -9");
        }
        assertThat(survivor.process.isAlive()).as("the survivor still runs").isTrue();
    }

    /** A process holding leases, and its registry's instance id. */
    private record Holder(ChildJvm process, String id) {
    }

    /** Starts a registered {@link LeaseHolderProcess} taking {@code leases} at {@code took}; returns once it holds them. */
    private Holder holder(int index, Instant took, Customer customer, int leases) throws Exception {
        ChildJvm process = ChildJvm.start(LeaseHolderProcess.class, "128m", logs.resolve("holder-" + index + ".log"),
                redis.uri(), took.toString(), customer.id(), String.valueOf(leases), "registry");
        processes.add(process);
        String id = process.awaitLine("INSTANCE ", Duration.ofMinutes(2)).substring("INSTANCE ".length());
        assertThat(process.awaitLine("HOLDING", Duration.ofMinutes(2))).isEqualTo("HOLDING " + leases);
        return new Holder(process, id);
    }
}
