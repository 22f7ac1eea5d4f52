package dev.quota.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Customer;
import dev.quota.core.QuotaService;
import dev.quota.core.TokenLeasing;
import dev.quota.testkit.BusyCores;
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
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three instances of a service in their own JVMs ({@link HotKeyProcess}) decide on one customer's
 * plan bucket on one real Redis, with leased shares as shipped, 1,500 decisions each for a
 * capacity of 3,000 at a clock standing still. Together they never admit more than the capacity,
 * and every token is admitted, held in a batch, or still in Redis, exactly once. Then one is
 * killed with its batch and the others close: the bucket lacks exactly what the killed one held,
 * no more (within the published bound per instance), until it refills.
 */
class LeasedSharesProcessesTest {

    private static final Instant AT = Instant.parse("2026-11-29T10:00:00Z");
    private static final int INSTANCES = 3;

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
    @ExtendWith(BusyCores.class) // every core busy: exact with the shipped settings on a saturated machine
    void threeProcessesOnAHotKey_neverAdmitAboveTheLimit_andAKilledOneLosesOnlyWhatItHeld() throws Exception {
        Customer customer = Customer.of("hot-" + UUID.randomUUID(), "hot");
        for (int i = 0; i < INSTANCES; i++) {
            processes.add(ChildJvm.start(HotKeyProcess.class, "192m", logs.resolve("hot-" + i + ".log"),
                    redis.uri(), AT.toString(), customer.id(), String.valueOf(INSTANCES), "1500"));
        }
        long admitted = 0;
        long held = 0;
        long[] heldBy = new long[INSTANCES];
        long batches = 0;
        for (int i = 0; i < INSTANCES; i++) {
            String[] line = processes.get(i).awaitLine("ADMITTED", Duration.ofMinutes(3)).split(" ", -1);
            admitted += Long.parseLong(line[1]);
            heldBy[i] = Long.parseLong(line[3]);
            held += heldBy[i];
            batches += Long.parseLong(line[5]);
        }
        assertThat(batches).as("the key was hot: the processes leased batches of it").isPositive();
        MutableClock clock = MutableClock.at(AT);
        try (QuotaService reader = QuotaService.builder().store(RedisStore.builder().uri(redis.uri()).clock(clock)
                .build()).config(HotKeyProcess.config()).clock(clock).tokenLeasing(TokenLeasing.OFF).build()) {
            long inRedis = reader.admin().standing(customer).get(0).remaining();
            assertThat(admitted).as("never above the limit").isLessThanOrEqualTo(HotKeyProcess.CAPACITY);
            // 4,500 asked of 3,000: short of the capacity by no more than batches may hold (operations.md)
            assertThat(admitted).as("under-admission within the published bound")
                    .isGreaterThanOrEqualTo(HotKeyProcess.CAPACITY
                            - TokenLeasing.DEFAULT.heldAtMost(HotKeyProcess.CAPACITY, INSTANCES, 1));
            assertThat(admitted + held + inRedis).as("admitted, held or in Redis, each token once")
                    .isEqualTo(HotKeyProcess.CAPACITY);

            assertThat(processes.get(0).kill()).as("killed with its batch").isTrue();
            for (int i = 1; i < INSTANCES; i++) {
                processes.get(i).send("CLOSE");
                assertThat(processes.get(i).awaitLine("CLOSED", Duration.ofSeconds(60))).isEqualTo("CLOSED");
            }

            long left = reader.admin().standing(customer).get(0).remaining();
            assertThat(left).as("what the closed ones held is back; the killed one's is not")
                    .isEqualTo(HotKeyProcess.CAPACITY - admitted - heldBy[0]);
            assertThat(heldBy[0]).as("a killed instance loses at most floor(0.1 x 3000 / 3) tokens")
                    .isLessThanOrEqualTo(100);
        }
    }
}
