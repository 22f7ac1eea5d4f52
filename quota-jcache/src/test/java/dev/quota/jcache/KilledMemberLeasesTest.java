package dev.quota.jcache;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.cache.impl.HazelcastServerCachingProvider;
import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import dev.quota.core.Customer;
import dev.quota.core.QuotaDecision;
import dev.quota.core.QuotaService;
import dev.quota.core.spi.LeaseHolder;
import dev.quota.testkit.Await;
import dev.quota.testkit.ChildJvm;
import dev.quota.testkit.FreePort;
import dev.quota.testkit.MutableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three instances of a service, each in its own JVM with its own Hazelcast member of one grid and
 * the JCache store as shipped (its leases held by its member): two processes
 * ({@link LeaseHoldingMemberProcess}) hold 3 and 2 of a customer's 5 leases, and this JVM decides.
 * The one holding 3, the cluster's oldest member (its master), is killed with {@code kill -9}. Once
 * Hazelcast has removed it, its 3 leases come back at the customer's next request, not before, and
 * exactly 3: the survivor's 2 and this JVM's own still count, on this member and on the survivor.
 * Every clock of the stores stands still, so no lease ever reaches its deadline here; how long
 * Hazelcast takes to notice the kill is awaited, never bounded. An operator's view on this member
 * shows the processes' leases, a bucket reset leaves them, and a confirmed release frees them all,
 * after which the limit holds again at exactly 5.
 */
class KilledMemberLeasesTest {

    private static final Instant KILLED_TOOK = Instant.parse("2026-12-03T10:00:00Z");
    private static final Instant SURVIVOR_TOOK = KILLED_TOOK.plusSeconds(30);
    /** How long a member may take to start, join, take its leases or be noticed dead, on a busy machine. */
    private static final Duration WAIT = Duration.ofMinutes(3);

    @TempDir
    Path logs;

    private final List<ChildJvm> processes = new ArrayList<>();
    private HazelcastInstance member;

    @AfterEach
    void stop() throws InterruptedException {
        for (ChildJvm process : processes) {
            process.close();
        }
        if (member != null) {
            member.getLifecycleService().terminate();
        }
    }

    @Test
    void leasesOfAKilledMember_comeBackOnceTheClusterRemovedIt_theLiveMembersNever() throws Exception {
        String cluster = "quota-killed-" + UUID.randomUUID();
        List<Integer> ports = List.of(FreePort.loopback(), FreePort.loopback(), FreePort.loopback());
        String allPorts = ports.stream().map(String::valueOf).collect(Collectors.joining(","));
        Customer customer = Customer.of("killed-" + UUID.randomUUID(), "free");
        // started one after the other: the killed one is the oldest member, the cluster's master
        Holder killed = holder(0, cluster, ports, allPorts, KILLED_TOOK, customer, 3);
        Holder survivor = holder(1, cluster, ports, allPorts, SURVIVOR_TOOK, customer, 2);
        member = Hazelcast.newHazelcastInstance(HazelcastGrid.loopback(cluster, ports.get(2),
                ports.stream().map(String::valueOf).toList()));
        AtomicLong removedAt = new AtomicLong();
        member.getCluster().addMembershipListener(new MembershipListener() {
            @Override
            public void memberAdded(MembershipEvent event) {
            }

            @Override
            public void memberRemoved(MembershipEvent event) {
                removedAt.compareAndSet(0, System.nanoTime());
            }
        });
        assertThat(killed.process.awaitLine("HOLDING", WAIT)).isEqualTo("HOLDING 3");
        assertThat(survivor.process.awaitLine("HOLDING", WAIT)).isEqualTo("HOLDING 2");
        assertThat(member.getCluster().getMembers().iterator().next().getUuid().toString())
                .as("the killed member is the oldest").isEqualTo(killed.uuid);

        MutableClock clock = MutableClock.at(SURVIVOR_TOOK); // stands still: no lease reaches its deadline
        var manager = new HazelcastServerCachingProvider(member).getCacheManager();
        JCacheStore store = JCacheStore.builder(JCacheStore.cache(manager, "quota-buckets")).clock(clock).build();
        try (QuotaService service = QuotaService.builder().store(store).config(LeaseHoldingMemberProcess.config())
                .clock(clock).build()) {
            assertThat(service.admin().inFlight(customer).get(0).held())
                    .as("the standing, read on this member, shows the other processes' leases").isEqualTo(5);
            service.admin().reset(customer);
            assertThat(service.admin().inFlight(customer).get(0).held()).as("a bucket reset leaves leases")
                    .isEqualTo(5);
            QuotaDecision sixth = service.decide(customer, null);
            assertThat(sixth.outcome()).as("five held by the two processes").isEqualTo(QuotaDecision.Outcome.REJECTED);
            assertThat(sixth.violated().policy()).isEqualTo("free-in-flight");
            assertThat(store.leaseHolder().tag()).isEqualTo(tag(member.getCluster().getLocalMember().getUuid()));

            assertThat(killed.process.kill()).as("killed").isTrue();
            long killedAt = System.nanoTime();

            // decide while the cluster notices: nothing is admitted before this member knows it removed
            long killedTag = tag(killed.uuid);
            int[] admitted = {0};
            int[] admittedNotKnowingDead = {0};
            long[] firstAdmittedAt = {0};
            Await.until(WAIT, () -> {
                boolean knewDead = store.leaseHolder().deadTags().contains(killedTag);
                if (service.decide(customer, null).allowed()) {
                    admitted[0]++;
                    firstAdmittedAt[0] = firstAdmittedAt[0] == 0 ? System.nanoTime() : firstAdmittedAt[0];
                    // nobody joins here, so the dead only grow: not known after the decision, not known during it
                    admittedNotKnowingDead[0] += store.leaseHolder().deadTags().contains(killedTag) ? 0 : 1;
                }
                return knewDead;
            }, () -> "the cluster to remove member " + killed.uuid);
            assertThat(admittedNotKnowingDead[0]).as("admitted before the member knew").isZero();
            for (int i = 0; i < 10; i++) {
                if (service.decide(customer, null).allowed()) {
                    admitted[0]++;
                    firstAdmittedAt[0] = firstAdmittedAt[0] == 0 ? System.nanoTime() : firstAdmittedAt[0];
                }
            }

            assertThat(admitted[0]).as("the killed member's three, not the survivor's two").isEqualTo(3);
            assertThat(store.leaseHolder().deadTags()).as("only the killed member is dead").containsExactly(killedTag);
            survivor.process.send("TAKE");
            assertThat(survivor.process.awaitLine("TOOK", WAIT))
                    .as("on the survivor too: five held (its 2, this member's 3), the killed one known dead")
                    .isEqualTo("TOOK false dead=[" + killedTag + "]");
            assertThat(member.getCluster().getMembers()).hasSize(2);

            // an operator's release frees every lease, the survivor's too; the limit counts from zero
            assertThat(service.admin().releaseLeases(customer).get(0).held()).isEqualTo(5);
            assertThat(service.admin().inFlight(customer).get(0).held()).isZero();
            int afterRelease = 0;
            for (int i = 0; i < 10; i++) {
                afterRelease += service.decide(customer, null).allowed() ? 1 : 0;
            }
            assertThat(afterRelease).as("counted from zero, never past the limit")
                    .isEqualTo(LeaseHoldingMemberProcess.CONCURRENCY);
            // the figure operations.md publishes
            System.out.printf("killed member removed %d ms after kill -9, its leases free %d ms after it%n",
                    Duration.ofNanos(removedAt.get() - killedAt).toMillis(),
                    Duration.ofNanos(firstAdmittedAt[0] - killedAt).toMillis());
        }
        assertThat(survivor.process.isAlive()).as("the survivor still runs").isTrue();
    }

    private static long tag(Object uuid) {
        return LeaseHolder.tagOf(uuid.toString());
    }

    /** A process holding leases, and its member's UUID. */
    private record Holder(ChildJvm process, String uuid) {
    }

    /** Starts a {@link LeaseHoldingMemberProcess}; returns once its member runs (it takes its leases once all have joined). */
    private Holder holder(int index, String cluster, List<Integer> ports, String allPorts, Instant took,
                          Customer customer, int leases) throws Exception {
        ChildJvm process = ChildJvm.start(LeaseHoldingMemberProcess.class, "256m", logs.resolve("member-" + index + ".log"),
                cluster, String.valueOf(ports.get(index)), allPorts, took.toString(), customer.id(),
                String.valueOf(leases));
        processes.add(process);
        String uuid = process.awaitLine("MEMBER ", WAIT).substring("MEMBER ".length());
        return new Holder(process, uuid);
    }
}
