package dev.quota.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import dev.quota.core.Limit;
import dev.quota.core.Refill;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.Take;
import dev.quota.testkit.MutableClock;
import dev.quota.testkit.RedisExtension;
import dev.quota.testkit.RespClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A customer whose bucket is empty costs no Redis command until its next token is due, and is
 * admitted again exactly then. Commands are counted by the server ({@code INFO commandstats}).
 */
class RedisStoreLocalRejectionTest {

    /** 5 tokens, one back every 12 seconds. */
    private static final BucketSpec SLOW = spec(5, 5, Duration.ofMinutes(1), 1);

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private static RespClient admin;

    private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
    private RedisStore store;

    @BeforeAll
    static void connectAdmin() {
        admin = RespClient.connect(redis.server().host(), redis.server().port());
    }

    @AfterAll
    static void closeAdmin() {
        admin.close();
    }

    @BeforeEach
    void openStore() {
        store = newStore(Duration.ofSeconds(1));
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    @Test
    void tryConsume_whileNoTokenIsDue_rejectsWithoutRedisCommand() {
        BucketKey key = freshKey();
        assertThat(store.tryConsume(key, SLOW, 5).tokensTaken()).isTrue();
        resetStats();

        for (int i = 0; i < 100; i++) {
            ConsumeResult rejected = store.tryConsume(key, SLOW, 1);
            assertThat(rejected.tokensTaken()).isFalse();
            assertThat(rejected.remaining()).containsExactly(0);
            assertThat(rejected.nanosToWait()).isEqualTo(Duration.ofSeconds(12).toNanos());
            assertThat(rejected.nanosToFull()).isEqualTo(Duration.ofMinutes(1).toNanos());
        }

        assertThat(calls()).isEmpty();
    }

    @Test
    void hundredRefusals_costNoCommandWithLocalRejection_andTwoHundredWithout() {
        BucketKey remembered = freshKey();
        store.tryConsume(remembered, SLOW, 5);
        resetStats();
        refuseHundredTimes(store, remembered);
        assertThat(calls()).isEmpty();

        try (RedisStore everyTime = newStore(Duration.ZERO)) {
            BucketKey asked = freshKey();
            everyTime.tryConsume(asked, SLOW, 5);
            resetStats();
            refuseHundredTimes(everyTime, asked);
            // each refusal is one script, which reads its key and writes nothing
            assertThat(calls()).containsOnly(entry("evalsha", 100L), entry("get", 100L));
        }
    }

    @Test
    void floodAtTwentyTimesTheLimit_costsRedisWhatItsAdmittedRequestsCost() {
        BucketKey remembered = freshKey();
        BucketKey asked = freshKey();
        try (RedisStore everyTime = newStore(Duration.ZERO)) {
            assertThat(flood(store, remembered)).isEqualTo(100);
            assertThat(calls()).containsOnly(entry("evalsha", 100L), entry("get", 100L), entry("set", 100L));

            assertThat(flood(everyTime, asked)).isEqualTo(100);
            assertThat(calls()).containsOnly(entry("evalsha", 2_000L), entry("get", 2_000L), entry("set", 100L));
        }
    }

    @Test
    void tryConsume_rejectedFromMemory_reportsTheWaitThatIsLeft() {
        BucketKey key = freshKey();
        store.tryConsume(key, SLOW, 5);
        clock.advance(Duration.ofMillis(700));
        resetStats();

        ConsumeResult rejected = store.tryConsume(key, SLOW, 1);

        assertThat(rejected.tokensTaken()).isFalse();
        assertThat(rejected.nanosToWait()).isEqualTo(Duration.ofMillis(11_300).toNanos());
        assertThat(calls()).isEmpty();
    }

    @Test
    void tryConsume_resumesExactlyWhenTheTokenIsDue() {
        store = replaceStore(newStore(Duration.ofMinutes(1)));
        BucketKey key = freshKey();
        store.tryConsume(key, SLOW, 5);

        clock.advance(Duration.ofSeconds(12).minusNanos(1));
        resetStats();
        ConsumeResult justBefore = store.tryConsume(key, SLOW, 1);
        assertThat(justBefore.tokensTaken()).isFalse();
        assertThat(justBefore.nanosToWait()).isEqualTo(1);
        assertThat(calls()).isEmpty();

        clock.advance(Duration.ofNanos(1));
        ConsumeResult due = store.tryConsume(key, SLOW, 1);
        assertThat(due.tokensTaken()).isTrue();
        assertThat(due.remaining()).containsExactly(0);
        // one script: it reads the bucket and writes the token taken
        assertThat(calls()).containsOnly(entry("evalsha", 1L), entry("get", 1L), entry("set", 1L));
    }

    @Test
    void tryConsume_afterARedisRejection_remembersItsWait() {
        BucketKey key = freshKey();
        BucketSpec spec = spec(3, 3, Duration.ofMinutes(1), 1); // one token every 20 s
        store.tryConsume(key, spec, 2);
        ConsumeResult first = store.tryConsume(key, spec, 2); // 1 left, 2 wanted: Redis says 20 s
        assertThat(first.tokensTaken()).isFalse();
        resetStats();

        ConsumeResult again = store.tryConsume(key, spec, 2);

        assertThat(again.tokensTaken()).isFalse();
        assertThat(again.remaining()).containsExactly(1);
        assertThat(again.nanosToWait()).isEqualTo(first.nanosToWait());
        assertThat(calls()).isEmpty();
    }

    @Test
    void tryConsume_ofFewerTokensThanTheRememberedRejection_asksRedis() {
        BucketKey key = freshKey();
        BucketSpec spec = spec(3, 3, Duration.ofMinutes(1), 1);
        store.tryConsume(key, spec, 2);
        store.tryConsume(key, spec, 2);

        ConsumeResult one = store.tryConsume(key, spec, 1);

        assertThat(one.tokensTaken()).isTrue();
        assertThat(one.remaining()).containsExactly(0);
    }

    @Test
    void tryConsume_withHigherVersion_asksRedisAndGetsTheNewLimits() {
        BucketKey key = freshKey();
        store.tryConsume(key, SLOW, 5);

        ConsumeResult upgraded = store.tryConsume(key, spec(10, 10, Duration.ofMinutes(1), 2), 1);

        // used 5 of 5; the limit becomes 10: 5 left before this request, 4 after
        assertThat(upgraded.tokensTaken()).isTrue();
        assertThat(upgraded.remaining()).containsExactly(4);
    }

    @Test
    void addTokens_clearsTheRememberedRejection() {
        BucketKey key = freshKey();
        store.tryConsume(key, SLOW, 5);
        assertThat(store.tryConsume(key, SLOW, 1).tokensTaken()).isFalse();

        store.addTokens(key, SLOW, 1);

        assertThat(store.tryConsume(key, SLOW, 1).tokensTaken()).isTrue();
    }

    @Test
    void reset_clearsTheRememberedRejection() {
        BucketKey key = freshKey();
        store.tryConsume(key, SLOW, 5);
        assertThat(store.tryConsume(key, SLOW, 1).tokensTaken()).isFalse();

        store.reset(key);

        assertThat(store.tryConsume(key, SLOW, 1).remaining()).containsExactly(4);
    }

    @Test
    void resetOnAnotherInstance_isSeenWithinTheHorizon() {
        BucketKey key = freshKey();
        store.tryConsume(key, SLOW, 5);
        try (RedisStore other = newStore(Duration.ofSeconds(1))) {
            other.reset(key);

            clock.advance(Duration.ofMillis(999));
            assertThat(store.tryConsume(key, SLOW, 1).tokensTaken()).isFalse(); // still trusted

            clock.advance(Duration.ofMillis(1));
            assertThat(store.tryConsume(key, SLOW, 1).tokensTaken()).isTrue();
        }
    }

    @Test
    void rejectLocallyForZero_asksRedisForEveryRequest() {
        store = replaceStore(newStore(Duration.ZERO));
        BucketKey key = freshKey();
        store.tryConsume(key, SLOW, 5);
        resetStats();

        for (int i = 0; i < 10; i++) {
            assertThat(store.tryConsume(key, SLOW, 1).tokensTaken()).isFalse();
        }

        assertThat(calls()).containsOnly(entry("evalsha", 10L), entry("get", 10L));
    }

    @Test
    void concurrentConsumers_atFrozenTime_admitExactlyCapacity_andRejectTheRestMostlyFromMemory() throws Exception {
        BucketKey key = freshKey();
        BucketSpec spec = spec(10, 1, Duration.ofHours(1), 1);
        resetStats();
        int requests = 1_000;
        ExecutorService pool = Executors.newFixedThreadPool(32);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Boolean>> results = new ArrayList<>();
        for (int i = 0; i < requests; i++) {
            results.add(pool.submit(() -> {
                start.await();
                return store.tryConsume(key, spec, 1).tokensTaken();
            }));
        }
        start.countDown();
        int admitted = 0;
        for (Future<Boolean> f : results) {
            admitted += f.get(30, TimeUnit.SECONDS) ? 1 : 0;
        }
        pool.shutdown();

        assertThat(admitted).isEqualTo(10);
        // a refusal computed while this instance's scripts on the key are out waits for their
        // replies (again, while takes keep being sent behind them) and then stands on what Redis
        // confirmed, so every script sent takes at least one of the 10: at most 10 of them, and one
        // EVAL where a fresh server answered NOSCRIPT; without the local refusal each of the 990
        // refusals would be a script
        Map<String, Long> calls = calls();
        long scripts = calls.getOrDefault("evalsha", 0L) + calls.getOrDefault("eval", 0L);
        assertThat(scripts).as("scripts for 1,000 decisions, 10 admitted (%s)", calls).isBetween(1L, 11L);
    }

    @Test
    void refusalCombinedWithAnotherCustomersTake_isAnsweredFromMemory_andStaysOutOfTheScript() {
        BucketKey flooded = freshKey();
        BucketKey other = freshKey();
        store.tryConsume(flooded, SLOW, 5); // empty now, as Redis confirmed
        store.tryConsume(other, SLOW, 1);
        resetStats();

        // two callers' consumes in one round, as concurrent callers of one instance are combined
        List<List<ConsumeResult>> both = store.engine().consumeAll(List.of(
                List.of(Take.of(flooded, SLOW, 1, 0)), List.of(Take.of(other, SLOW, 1, 0))));

        assertThat(both.get(0).get(0).tokensTaken()).isFalse();
        assertThat(both.get(0).get(0).nanosToWait()).isEqualTo(Duration.ofSeconds(12).toNanos());
        assertThat(both.get(1).get(0).tokensTaken()).isTrue();
        assertThat(both.get(1).get(0).remaining()).containsExactly(3);
        // one script, reading and writing only the key it takes from
        assertThat(admin.commandStats()).containsEntry("get", 1L).containsEntry("set", 1L);
    }

    private RedisStore newStore(Duration rejectLocallyFor) {
        return RedisStore.builder().uri(redis.uri()).clock(clock)
                .rejectLocallyFor(rejectLocallyFor).build();
    }

    private RedisStore replaceStore(RedisStore next) {
        store.close();
        return next;
    }

    private static BucketKey freshKey() {
        return new BucketKey("quota-test:" + UUID.randomUUID());
    }

    private static BucketSpec spec(long capacity, long tokens, Duration period, long version) {
        return BucketSpec.of(List.of(new Limit("burst", capacity, Refill.greedy(tokens, period))), version);
    }

    private static void resetStats() {
        admin.command("CONFIG", "RESETSTAT");
    }

    /**
     * Empties a bucket of 10 a second, resets the command stats, then sends it 200 requests a
     * second for 10 seconds; answers how many were admitted.
     */
    private int flood(RedisStore target, BucketKey key) {
        BucketSpec tenPerSecond = spec(10, 10, Duration.ofSeconds(1), 1);
        target.tryConsume(key, tenPerSecond, 10);
        resetStats();
        int admitted = 0;
        for (int i = 0; i < 2_000; i++) {
            clock.advance(Duration.ofMillis(5));
            admitted += target.tryConsume(key, tenPerSecond, 1).tokensTaken() ? 1 : 0;
        }
        return admitted;
    }

    private static void refuseHundredTimes(RedisStore target, BucketKey key) {
        for (int i = 0; i < 100; i++) {
            assertThat(target.tryConsume(key, SLOW, 1).tokensTaken()).isFalse();
        }
    }

    /** Calls of each command the server ran since the last reset, those a script ran included. */
    private static Map<String, Long> calls() {
        return ServerCalls.since(admin);
    }
}
