package dev.quota.redis;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A consume starts from the state this instance last wrote: one EVALSHA instead of a GET and an
 * EVALSHA, with answers identical to reading first, also when other instances write the same key.
 * Local rejections are off here ({@code rejectLocallyFor 0}) so every request reaches the proxy.
 */
class RedisStoreWrittenStateTest {

    private static final BucketSpec TEN = BucketSpec.of(
            List.of(new Limit("burst", 10, Refill.greedy(1, Duration.ofHours(1)))), 1);

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private static RespClient admin;

    private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
    private RedisStore a;
    private RedisStore b;

    @BeforeAll
    static void connectAdmin() {
        admin = RespClient.connect(redis.server().host(), redis.server().port());
    }

    @AfterAll
    static void closeAdmin() {
        admin.close();
    }

    @BeforeEach
    void openStores() {
        a = newStore();
        b = newStore();
    }

    @AfterEach
    void closeStores() {
        a.close();
        b.close();
    }

    @Test
    void tryConsume_onABucketThisInstanceWrote_costsOneEvalshaAndNoRead() {
        BucketKey key = freshKey();
        a.tryConsume(key, TEN, 1);
        resetStats();

        for (int i = 0; i < 5; i++) {
            assertThat(a.tryConsume(key, TEN, 1).remaining()).containsExactly(8 - i);
        }

        Map<String, Long> stats = admin.commandStats();
        assertThat(stats.get("evalsha")).isEqualTo(5);
        // the compare-and-swap script reads the key once inside Redis; no GET came from the client
        assertThat(stats.get("get")).isEqualTo(5);
    }

    @Test
    void tryConsume_alternatingBetweenInstances_admitsExactlyCapacity() {
        BucketKey key = freshKey();
        int admitted = 0;
        long expectedRemaining = 9;
        for (int i = 0; i < 20; i++) {
            ConsumeResult result = (i % 2 == 0 ? a : b).tryConsume(key, TEN, 1);
            if (result.tokensTaken()) {
                assertThat(result.remaining()).containsExactly(expectedRemaining--);
                admitted++;
            }
        }

        assertThat(admitted).isEqualTo(10);
        assertThat(a.peek(key, TEN).remaining()).containsExactly(0);
    }

    @Test
    void rejection_fromRememberedState_isCheckedInRedis() {
        BucketKey key = freshKey();
        a.tryConsume(key, TEN, 10); // a remembers an empty bucket

        b.reset(key);

        ConsumeResult result = a.tryConsume(key, TEN, 1);
        assertThat(result.tokensTaken()).isTrue();
        assertThat(result.remaining()).containsExactly(9);
    }

    @Test
    void peek_showsWhatOtherInstancesTook() {
        BucketKey key = freshKey();
        a.tryConsume(key, TEN, 1);
        b.tryConsume(key, TEN, 3);

        assertThat(a.peek(key, TEN).remaining()).containsExactly(6);
    }

    @Test
    void keyWrittenByAnotherInstance_isTakenFromInTheFirstScript_oneRoundTrip() {
        BucketKey key = freshKey();
        a.tryConsume(key, TEN, 1);
        b.tryConsume(key, TEN, 1);
        resetStats();

        ConsumeResult result = a.tryConsume(key, TEN, 1); // b wrote in between: a's state is outdated

        assertThat(result.tokensTaken()).isTrue();
        assertThat(result.remaining()).as("what Redis held, less the take").containsExactly(7);
        Map<String, Long> stats = admin.commandStats();
        // the script finds the key changed, its tokens cover the take: it takes it from them and writes
        assertThat(stats.get("evalsha")).isEqualTo(1);
        assertThat(stats.get("get")).as("only the script's own read").isEqualTo(1);
        assertThat(a.tryConsume(key, TEN, 1).remaining()).as("a remembered what the script wrote")
                .containsExactly(6);
        assertThat(admin.commandStats().get("evalsha")).isEqualTo(2);
    }

    @Test
    void keyAnInstanceOfAnEarlierStartWrote_sameLimits_isTakenFromInTheFirstScript_atTheNewerVersion() {
        // instances that load one plans file without a version stamp each their own start: b's is later
        BucketSpec later = BucketSpec.of(TEN.limits(), TEN.version() + 1);
        BucketKey key = freshKey();
        b.tryConsume(key, later, 1); // b remembers 9, at its version
        a.tryConsume(key, TEN, 1); // a writes 8, keeping b's newer version
        a.tryConsume(key, TEN, 1); // 7
        resetStats();

        ConsumeResult result = b.tryConsume(key, later, 1);

        assertThat(result.tokensTaken()).isTrue();
        assertThat(result.remaining()).as("what Redis held, less the take").containsExactly(6);
        assertThat(admin.commandStats().get("evalsha")).isEqualTo(1);

        BucketKey fresh = freshKey();
        a.tryConsume(fresh, TEN, 1); // created at a's older version: 9
        resetStats();

        // b has not seen the key: its script expects none, finds a's, and takes from it as Bucket4j
        // would after giving it b's (same) limits
        ConsumeResult onOlder = b.tryConsume(fresh, later, 2);

        assertThat(onOlder.remaining()).as("Redis's 9 less the take").containsExactly(7);
        assertThat(admin.commandStats().get("evalsha")).as("the older version's state taken from too").isEqualTo(1);
        assertThat(a.tryConsume(fresh, TEN, 1).remaining()).containsExactly(6);
        assertThat(b.peek(fresh, later).remaining()).containsExactly(6);
    }

    @Test
    void sharedKeyAnotherInstanceWrote_inADecisionOfTwoBuckets_isOneScript_withEachBucketsRemainingFromRedis() {
        BucketKey own = freshKey();
        BucketKey shared = freshKey();
        a.tryConsume(List.of(Take.of(own, TEN, 1, 0), Take.of(shared, TEN, 1, 0)));
        b.tryConsume(shared, TEN, 4); // Redis: 5 on the shared key, a remembers 9
        b.addTokens(shared, TEN, 2); // given back there: 7, more than a's own state would say after 4
        resetStats();

        List<ConsumeResult> results = a.tryConsume(List.of(Take.of(own, TEN, 2, 0), Take.of(shared, TEN, 2, 0)));

        assertThat(results).extracting(r -> r.tokensTaken()).containsExactly(true, true);
        assertThat(results.get(0).remaining()).as("own: 9 less 2").containsExactly(7);
        assertThat(results.get(1).remaining()).as("shared: Redis's 7 less 2, not a's 9 less 2").containsExactly(5);
        assertThat(admin.commandStats().get("evalsha")).isEqualTo(1);
        assertThat(b.peek(shared, TEN).remaining()).containsExactly(5);
        assertThat(b.peek(own, TEN).remaining()).containsExactly(7);
    }

    @Test
    void keyAnotherInstanceLeftTooFewTokensIn_costsOneMoreRoundTrip_andIsRefusedOnWhatItHolds() {
        BucketKey key = freshKey();
        a.tryConsume(key, TEN, 1);
        b.tryConsume(key, TEN, 8); // Redis: 1, a remembers 9
        resetStats();

        ConsumeResult result = a.tryConsume(key, TEN, 2);

        assertThat(result.tokensTaken()).isFalse();
        assertThat(result.remaining()).containsExactly(1);
        Map<String, Long> stats = admin.commandStats();
        // the stored tokens do not cover the take: the script answers what the key holds and writes
        // nothing; the decision is made again on it, as before the script could take: one more
        assertThat(stats.get("evalsha")).isEqualTo(2);
        assertThat(stats).doesNotContainKey("set");
        assertThat(b.peek(key, TEN).remaining()).containsExactly(1);
    }

    @Test
    void stateOfAKeyAboutToExpire_isReadAgain() {
        // 1,000 per second and no expiry margin: the key lives 1 ms after a consume of one token
        try (RedisStore shortLived = RedisStore.builder().uri(redis.uri()).clock(clock)
                .rejectLocallyFor(Duration.ZERO).expiryMargin(Duration.ZERO).build()) {
            BucketSpec fast = BucketSpec.of(List.of(new Limit("burst", 1_000, Refill.greedy(1_000,
                    Duration.ofSeconds(1)))), 1);
            BucketKey key = freshKey();
            shortLived.tryConsume(key, fast, 1);
            dev.quota.testkit.Await.until(Duration.ofSeconds(5), () -> admin.command("EXISTS", key.value())
                    .equals(0L), () -> "the key did not expire");
            clock.advance(Duration.ofMillis(2)); // the store's clock passes the key's TTL too
            resetStats();

            ConsumeResult result = shortLived.tryConsume(key, fast, 1);

            assertThat(result.tokensTaken()).isTrue();
            assertThat(result.remaining()).containsExactly(999);
            // the state written before is not offered once its key is gone: one script, no miss
            assertThat(admin.commandStats().get("evalsha")).isEqualTo(1);
        }
    }

    @Test
    void reuseWrittenStateOff_readsBeforeEveryWrite() {
        try (RedisStore plain = RedisStore.builder().uri(redis.uri()).clock(clock)
                .rejectLocallyFor(Duration.ZERO).reuseWrittenState(false).build()) {
            BucketKey key = freshKey();
            plain.tryConsume(key, TEN, 1);
            resetStats();

            plain.tryConsume(key, TEN, 1);

            // one read from the client (an MGET), then the script's own GET of the key
            assertThat(admin.commandStats()).containsEntry("mget", 1L).containsEntry("get", 1L);
        }
    }

    private RedisStore newStore() {
        return RedisStore.builder().uri(redis.uri()).clock(clock)
                .rejectLocallyFor(Duration.ZERO).build();
    }

    private static BucketKey freshKey() {
        return new BucketKey("quota-test:" + UUID.randomUUID());
    }

    private static void resetStats() {
        admin.command("CONFIG", "RESETSTAT");
    }
}
