package dev.quota.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.testkit.RedisServer;
import dev.quota.testkit.RespClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Both transfer contenders enforce every bucket they are given: with one bucket tight that does not
 * refill within a test (the plan's hourly and daily limits, the amount), each admits exactly that
 * bucket's worth, and a rejected transfer takes nothing, so the count is exact.
 */
class TransferContendersTest {

    private static RedisServer redis;
    private static Instance instance;
    private static RespClient admin;

    @BeforeAll
    static void start() {
        redis = RedisServer.start();
        instance = Instance.connect(redis.uri(), 0, 0);
        admin = RespClient.connect(redis.host(), redis.port());
    }

    @AfterAll
    static void stop() {
        admin.close();
        instance.close();
        redis.close();
    }

    private static long admitted(Kind kind, TransferLimits limits, String namespace, int customer, int requests) {
        try (Contender contender = limits.create(kind, instance.client(), namespace)) {
            contender.prepare(customer + 1);
            long admitted = 0;
            for (int i = 0; i < requests; i++) {
                if (contender.acquire(customer) == Outcome.ADMITTED) {
                    admitted++;
                }
            }
            return admitted;
        }
    }

    private static TransferLimits variant(String bucket) {
        return TransferLimits.VARIANTS.stream().filter(v -> v.bucket().startsWith(bucket)).findFirst().orElseThrow()
                .limits();
    }

    @ParameterizedTest
    @EnumSource(value = Kind.class, names = {"QUOTA_TRANSFER", "LUA_TRANSFER"})
    void planHourlyTight_admitsExactlyItsCapacity(Kind kind) {
        assertThat(admitted(kind, variant("plan hourly"), kind + "-hourly", 3, 40)).isEqualTo(30);
    }

    @ParameterizedTest
    @EnumSource(value = Kind.class, names = {"QUOTA_TRANSFER", "LUA_TRANSFER"})
    void planDailyTight_admitsExactlyItsCapacity(Kind kind) {
        assertThat(admitted(kind, variant("plan daily"), kind + "-daily", 3, 40)).isEqualTo(25);
    }

    @ParameterizedTest
    @EnumSource(value = Kind.class, names = {"QUOTA_TRANSFER", "LUA_TRANSFER"})
    void amountTight_admitsExactlyTheTransfersItCovers(Kind kind) {
        // 1,000 a day, 100 a transfer
        assertThat(admitted(kind, variant("amount"), kind + "-amount", 3, 40)).isEqualTo(10);
    }

    @ParameterizedTest
    @EnumSource(value = Kind.class, names = {"QUOTA_TRANSFER", "LUA_TRANSFER"})
    void oneTransfer_writesFiveBuckets(Kind kind) {
        admin.flushAll();

        assertThat(admitted(kind, TransferLimits.THROUGHPUT, kind + "-keys", 0, 1)).isEqualTo(1);

        assertThat(admin.dbSize()).isEqualTo(5);
    }

    @ParameterizedTest
    @EnumSource(value = Kind.class, names = {"QUOTA_TRANSFER", "LUA_TRANSFER"})
    void throughputLimits_admitEveryTransferOfAFewCustomers(Kind kind) {
        long admitted = 0;
        try (Contender contender = TransferLimits.THROUGHPUT.create(kind, instance.client(), kind + "-many")) {
            contender.prepare(10);
            for (int i = 0; i < 50; i++) {
                admitted += contender.acquire(i % 10) == Outcome.ADMITTED ? 1 : 0;
            }
        }
        assertThat(admitted).isEqualTo(50);
    }
}
