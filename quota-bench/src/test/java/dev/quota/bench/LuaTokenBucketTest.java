package dev.quota.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.testkit.RedisServer;
import dev.quota.testkit.RespClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Baseline (a) is a correct token bucket: exact at a frozen time, exact refill, nothing written on rejection. */
class LuaTokenBucketTest {

    private static RedisServer redis;
    private static RespClient client;

    @BeforeAll
    static void start() {
        redis = RedisServer.start();
        client = RespClient.connect(redis.host(), redis.port());
    }

    @AfterAll
    static void stop() {
        client.close();
        redis.close();
    }

    /** Capacity 5, 5 per second (a token every 200 ms), at {@code nowMicros}. */
    private static long take(String key, long nowMicros) {
        return (Long) client.command("EVAL", LuaContender.SCRIPT, "1", key, "5", "5", "1000000",
                Long.toString(nowMicros), "60000");
    }

    @Test
    void atAFrozenTime_admitsExactlyCapacity_thenNamesTheWait() {
        long t0 = 1_700_000_000_000_000L;
        for (int i = 0; i < 5; i++) {
            assertThat(take("lua-test:a", t0)).isEqualTo(1);
        }

        assertThat(take("lua-test:a", t0)).isEqualTo(-200_000);
        assertThat(take("lua-test:a", t0 + 150_000)).isEqualTo(-50_000);
    }

    @Test
    void refill_admitsOneTokenPerPeriodExactly() {
        long t0 = 1_700_000_000_000_000L;
        for (int i = 0; i < 5; i++) {
            take("lua-test:b", t0);
        }

        assertThat(take("lua-test:b", t0 + 199_999)).isEqualTo(-1);
        assertThat(take("lua-test:b", t0 + 200_000)).isEqualTo(1);
        assertThat(take("lua-test:b", t0 + 200_000)).isNegative();
    }

    @Test
    void rejection_writesNothing() {
        long t0 = 1_700_000_000_000_000L;
        for (int i = 0; i < 5; i++) {
            take("lua-test:c", t0);
        }
        client.command("CONFIG", "RESETSTAT");

        take("lua-test:c", t0);

        assertThat(client.commandStats()).doesNotContainKeys("hset", "pexpire");
    }
}
