package dev.quota.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Concurrency;
import dev.quota.core.Customer;
import dev.quota.core.InFlightStanding;
import dev.quota.core.QuotaService;
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
 * An operator's view of leases held by instances in their own JVMs ({@link LeaseHolderProcess}) on
 * one real Redis: the standing shows them from a third instance, a bucket reset leaves them, and a
 * confirmed release frees them, the killed instance's with the rest; afterwards the in-flight limit
 * counts from zero and holds again at exactly {@link LeaseHolderProcess#CONCURRENCY}.
 */
class LeaseAdminProcessesTest {

    private static final Instant FIRST_TOOK = Instant.parse("2026-11-29T10:00:00Z");
    private static final Instant SECOND_TOOK = FIRST_TOOK.plusSeconds(20);

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
    void leasesOfOtherProcesses_areShown_surviveABucketReset_andAreFreedByARelease_thenTheLimitHoldsAgain()
            throws Exception {
        Customer customer = Customer.of("admin-" + UUID.randomUUID(), "free");
        ChildJvm killed = holder(0, FIRST_TOOK, customer, 3);
        holder(1, SECOND_TOOK, customer, 2);
        assertThat(killed.kill()).as("killed").isTrue();

        MutableClock clock = MutableClock.at(SECOND_TOOK.plusSeconds(1));
        RedisStore store = RedisStore.builder().uri(redis.uri()).clock(clock).build();
        try (QuotaService service = QuotaService.builder().store(store).config(LeaseHolderProcess.config())
                .clock(clock).build()) {
            assertThat(service.admin().inFlight(customer)).containsExactly(new InFlightStanding("free-in-flight", 5,
                    LeaseHolderProcess.CONCURRENCY, Concurrency.DEFAULT_LEASE_TIMEOUT,
                    FIRST_TOOK.plus(Concurrency.DEFAULT_LEASE_TIMEOUT)));

            service.admin().reset(customer);
            assertThat(service.admin().inFlight(customer).get(0).held()).as("a bucket reset leaves leases").isEqualTo(5);
            assertThat(service.decide(customer, null).allowed()).isFalse();

            List<InFlightStanding> before = service.admin().releaseLeases(customer);
            assertThat(before.get(0).held()).isEqualTo(5);
            assertThat(service.admin().inFlight(customer).get(0).held()).isZero();

            int admitted = 0;
            for (int i = 0; i < 10; i++) {
                if (service.decide(customer, null).allowed()) {
                    admitted++;
                }
            }
            assertThat(admitted).as("counted from zero, and never past the limit").isEqualTo(LeaseHolderProcess.CONCURRENCY);
            assertThat(service.admin().inFlight(customer).get(0).held()).isEqualTo(LeaseHolderProcess.CONCURRENCY);
        }
    }

    /** Starts a {@link LeaseHolderProcess} taking {@code leases} at {@code took}; returns once it holds them. */
    private ChildJvm holder(int index, Instant took, Customer customer, int leases) throws Exception {
        ChildJvm process = ChildJvm.start(LeaseHolderProcess.class, "128m", logs.resolve("holder-" + index + ".log"),
                redis.uri(), took.toString(), customer.id(), String.valueOf(leases));
        processes.add(process);
        assertThat(process.awaitLine("HOLDING", Duration.ofMinutes(2))).isEqualTo("HOLDING " + leases);
        return process;
    }
}
