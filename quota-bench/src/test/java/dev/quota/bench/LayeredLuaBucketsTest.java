package dev.quota.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.testkit.RedisServer;
import dev.quota.testkit.RespClient;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The layered Lua floor ({@code layered_buckets.lua}) is all or nothing over its buckets, with the
 * one-bucket floor's arithmetic: at a frozen time it admits exactly what the tightest limit holds,
 * a rejection writes nothing to any bucket, and each kind of limit refills exactly.
 *
 * <p>Three buckets: a plan with two limits (greedy 5, refilled 5 per second; interval 6 per 10 s),
 * a rule (greedy 4 per second: one token every 250 ms), and an amount in a calendar window (100,
 * ending a day after t0).
 */
class LayeredLuaBucketsTest {

    private static final long T0 = 1_700_000_000_000_000L;
    private static final long DAY_END = T0 + 86_400_000_000L;

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

    /** One decision of {@code amount} at {@code nowMicros} over the three buckets under {@code prefix}. */
    private static long decide(String prefix, long nowMicros, long amount) {
        List<String> args = new ArrayList<>(List.of("EVAL", LayeredLuaContender.SCRIPT, "3",
                prefix + ":plan", prefix + ":rule", prefix + ":amount", Long.toString(nowMicros)));
        args.addAll(List.of("1", "60000", "2", "5", "5", "1000000", "g", "6", "6", "10000000", "i"));
        args.addAll(List.of("1", "60000", "1", "4", "4", "1000000", "g"));
        args.addAll(List.of(Long.toString(amount), "60000", "1", "100", "100", Long.toString(DAY_END), "c"));
        return (Long) client.command(args.toArray(String[]::new));
    }

    /** Six decisions 300 ms apart from {@code from}: the interval limit's tokens, the others keep up. */
    private static void drainInterval(String prefix, long from) {
        for (int i = 0; i < 6; i++) {
            assertThat(decide(prefix, from + i * 300_000L, 1)).isEqualTo(1);
        }
    }

    @SuppressWarnings("unchecked")
    private static List<Object> levels(String prefix) {
        List<Object> out = new ArrayList<>();
        out.addAll((List<Object>) client.command("HMGET", prefix + ":plan", "l1", "l2"));
        out.addAll((List<Object>) client.command("HMGET", prefix + ":rule", "l1"));
        out.addAll((List<Object>) client.command("HMGET", prefix + ":amount", "l1"));
        return out;
    }

    @Test
    void admitted_takesFromEveryLimitOfEveryBucket() {
        assertThat(decide("ly:a", T0, 30)).isEqualTo(1);

        // greedy levels count tokens times the period (us); interval and calendar levels count tokens
        assertThat(levels("ly:a")).containsExactly("4000000", "5", "3000000", "70");
    }

    @Test
    void atAFrozenTime_admitsExactlyWhatTheTightestLimitHolds_thenNamesTheWait() {
        for (int i = 0; i < 4; i++) {
            assertThat(decide("ly:b", T0, 1)).isEqualTo(1);
        }

        assertThat(decide("ly:b", T0, 1)).isEqualTo(-250_000);
    }

    @Test
    void rejectionByOneBucket_takesNothingFromAnyBucket() {
        assertThat(decide("ly:c", T0, 60)).isEqualTo(1);
        List<Object> before = levels("ly:c");
        client.command("CONFIG", "RESETSTAT");

        // 60 more would overdraw the amount (40 left) while the plan and the rule have tokens
        assertThat(decide("ly:c", T0, 60)).isEqualTo(-(DAY_END - T0));

        assertThat(levels("ly:c")).isEqualTo(before);
        assertThat(client.commandStats()).doesNotContainKeys("hset", "pexpire");
    }

    @Test
    void rejectionByOneLimitOfABucket_leavesItsOtherLimitAndTheOtherBucketsAlone() {
        drainInterval("ly:d", T0);
        List<Object> before = levels("ly:d");

        assertThat(decide("ly:d", T0 + 1_800_000, 1)).isEqualTo(-8_200_000);

        assertThat(levels("ly:d")).isEqualTo(before);
        assertThat(before.get(1)).isEqualTo("0");
        assertThat(before.get(3)).isEqualTo("94");
    }

    @Test
    void greedyRefill_isExactToTheMicrosecond() {
        for (int i = 0; i < 4; i++) {
            decide("ly:e", T0, 1);
        }

        assertThat(decide("ly:e", T0 + 249_999, 1)).isEqualTo(-1);
        assertThat(decide("ly:e", T0 + 250_000, 1)).isEqualTo(1);
        assertThat(decide("ly:e", T0 + 250_000, 1)).isNegative();
    }

    @Test
    void intervalRefill_comesAllAtOnceAtTheEndOfEachPeriod() {
        drainInterval("ly:f", T0);

        assertThat(decide("ly:f", T0 + 9_999_999, 1)).isEqualTo(-1);
        drainInterval("ly:f", T0 + 10_000_000);
        assertThat(decide("ly:f", T0 + 11_800_000, 1)).isEqualTo(-8_200_000);
    }

    @Test
    void calendarBucket_neverRefillsWithinItsWindow() {
        assertThat(decide("ly:g", T0, 100)).isEqualTo(1);

        assertThat(decide("ly:g", T0 + 3_600_000_000L, 1)).isEqualTo(-(DAY_END - T0 - 3_600_000_000L));
    }
}
