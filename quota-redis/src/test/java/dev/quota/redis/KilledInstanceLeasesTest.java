package dev.quota.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Concurrency;
import dev.quota.core.Customer;
import dev.quota.core.QuotaDecision;
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
 * Instances of a service in their own JVMs ({@link LeaseHolderProcess}) hold a customer's leases on
 * one real Redis; one of them is killed. Its leases come back at their deadline (taken + the default
 * lease timeout of 60 s, by the store's clock), not a nanosecond earlier, and exactly as many as it
 * held: the surviving instance's leases still count.
 */
class KilledInstanceLeasesTest {

    /** When the instance that is killed took its leases. */
    private static final Instant KILLED_TOOK = Instant.parse("2026-11-29T10:00:00Z");
    /** When the surviving instance took its leases: 30 s later, so they end 30 s after the killed one's. */
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
    void leasesOfAKilledProcess_comeBackAtTheirDeadline_exactlyAsManyAsItHeld_theSurvivorsStillCount()
            throws Exception {
        Customer customer = Customer.of("killed-" + UUID.randomUUID(), "free");
        ChildJvm killed = holder(0, KILLED_TOOK, customer, 3);
        ChildJvm survivor = holder(1, SURVIVOR_TOOK, customer, 2);
        assertThat(survivor.isAlive()).isTrue();

        assertThat(killed.kill()).as("killed").isTrue();

        MutableClock clock = MutableClock.at(SURVIVOR_TOOK);
        RedisStore store = RedisStore.builder().uri(redis.uri()).clock(clock).build();
        try (QuotaService service = QuotaService.builder().store(store).config(LeaseHolderProcess.config())
                .clock(clock).build()) {
            QuotaDecision sixth = service.decide(customer, null);
            assertThat(sixth.outcome()).as("five held by the two processes").isEqualTo(QuotaDecision.Outcome.REJECTED);
            assertThat(sixth.violated().policy()).isEqualTo("free-in-flight");
            assertThat(sixth.retryAfter()).as("nobody knows when a running request ends").isZero();

            Instant deadline = KILLED_TOOK.plus(Concurrency.DEFAULT_LEASE_TIMEOUT);
            clock.set(deadline.minusNanos(1));
            assertThat(service.decide(customer, null).allowed()).as("a nanosecond before the deadline").isFalse();

            clock.set(deadline);
            int admitted = 0;
            for (int i = 0; i < 10; i++) {
                if (service.decide(customer, null).allowed()) {
                    admitted++;
                }
            }
            assertThat(admitted).as("the killed process's three, not the survivor's two").isEqualTo(3);
        }
        assertThat(survivor.isAlive()).as("the survivor still runs").isTrue();
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
