package dev.quota.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Customer;
import dev.quota.core.FailurePolicy;
import dev.quota.core.Limit;
import dev.quota.core.QuotaDecision;
import dev.quota.core.QuotaService;
import dev.quota.core.Refill;
import dev.quota.core.resilience.OnePlan;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.testkit.Await;
import dev.quota.testkit.MutableClock;
import dev.quota.testkit.RedisExtension;
import dev.quota.testkit.RespClient;
import dev.quota.testkit.StderrCapture;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Redis losing or mangling bucket state: flushed, scripts flushed, restarted empty, a key
 * overwritten with bytes that are not a bucket or with another type. Requests keep working on
 * fresh buckets; nothing reaches the caller as an exception.
 */
class RedisStateLossTest {

    private static final BucketSpec SPEC = BucketSpec.of(
            List.of(new Limit("burst", 10, Refill.greedy(1, Duration.ofHours(1)))), 1);

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
    private RespClient resp;
    private RedisStore store;

    @BeforeEach
    void open() {
        store = RedisStore.builder().uri(redis.uri()).clock(clock).build();
        resp = RespClient.connect(redis.server().host(), redis.server().port());
    }

    @AfterEach
    void close() {
        resp.close();
        store.close();
    }

    private static BucketKey freshKey() {
        return new BucketKey("quota:p:" + UUID.randomUUID());
    }

    @Test
    void flushAll_nextRequestStartsWithAFreshBucket() {
        BucketKey key = freshKey();
        store.tryConsume(key, SPEC, 4);

        resp.flushAll();

        assertThat(store.tryConsume(key, SPEC, 1).remaining()).containsExactly(9);
    }

    @Test
    void scriptFlush_compareAndSwapKeepsWorking() {
        BucketKey key = freshKey();
        store.tryConsume(key, SPEC, 1);
        store.tryConsume(key, SPEC, 1); // the compare-and-swap script is now cached by Redis

        resp.command("SCRIPT", "FLUSH");

        assertThat(store.tryConsume(key, SPEC, 1).remaining()).containsExactly(7);
        assertThat(store.tryConsume(key, SPEC, 1).remaining()).containsExactly(6);
    }

    @Test
    void scriptFlush_theNextCallGoesOnceMoreWithTheScriptsText_thenByItsShaAlone() {
        BucketKey key = freshKey();
        store.tryConsume(key, SPEC, 1);
        resp.command("SCRIPT", "FLUSH");
        resp.command("CONFIG", "RESETSTAT");

        assertThat(store.tryConsume(key, SPEC, 1).remaining()).containsExactly(8);
        Map<String, Long> afterTheFlush = commands();
        resp.command("CONFIG", "RESETSTAT");
        assertThat(store.tryConsume(key, SPEC, 1).remaining()).containsExactly(7);
        Map<String, Long> afterwards = commands();

        // the EVALSHA Redis did not know ran nothing (one GET and one SET: the EVAL's)
        assertThat(afterTheFlush).containsExactlyInAnyOrderEntriesOf(
                Map.of("evalsha", 1L, "eval", 1L, "get", 1L, "set", 1L));
        assertThat(afterwards).containsExactlyInAnyOrderEntriesOf(Map.of("evalsha", 1L, "get", 1L, "set", 1L));
    }

    /** Commands the server ran since the last reset, other than this test's INFO and CONFIG. */
    private Map<String, Long> commands() {
        Map<String, Long> calls = new TreeMap<>(resp.commandStats());
        calls.remove("info");
        calls.keySet().removeIf(name -> name.startsWith("config")); // Redis 7 names it "config|resetstat"
        return calls;
    }

    @Test
    void garbageBytesAtTheKey_areTreatedAsAFreshBucketWithAWarning() {
        BucketKey key = freshKey();
        store.tryConsume(key, SPEC, 4);
        resp.command("SET", key.value(), "this is not a bucket state");

        ConsumeResult result;
        try (StderrCapture log = new StderrCapture()) {
            result = store.tryConsume(key, SPEC, 1);
            assertThat(log.text()).contains("WARN").contains(key.value()).contains("not a bucket state");
        }

        assertThat(result.tokensTaken()).isTrue();
        assertThat(result.remaining()).containsExactly(9);
        assertThat(store.tryConsume(key, SPEC, 1).remaining()).containsExactly(8);
    }

    @Test
    void aListAtTheKey_isTreatedAsAFreshBucketWithAWarning() {
        BucketKey key = freshKey();
        resp.command("RPUSH", key.value(), "a", "b");

        ConsumeResult result;
        try (StderrCapture log = new StderrCapture()) {
            result = store.tryConsume(key, SPEC, 1);
            assertThat(log.text()).contains("WARN").contains(key.value()).contains("LIST");
        }

        assertThat(result.remaining()).containsExactly(9);
        assertThat(resp.command("TYPE", key.value())).isEqualTo("string");
    }

    @Test
    void aHashAtTheKey_isTreatedAsAFreshBucket_forPeekAndAddTokensToo() {
        BucketKey peeked = freshKey();
        BucketKey refunded = freshKey();
        resp.command("HSET", peeked.value(), "field", "value");
        resp.command("HSET", refunded.value(), "field", "value");

        assertThat(store.peek(peeked, SPEC).remaining()).containsExactly(10);
        store.addTokens(refunded, SPEC, 1);

        assertThat(store.tryConsume(refunded, SPEC, 1).remaining()).containsExactly(9);
    }

    @Test
    void corruptKey_throughTheService_isAnOrdinaryDecision() {
        QuotaService service = QuotaService.builder().store(store).clock(clock).keyPrefix("corrupt")
                .config(OnePlan.config("free", 10, Refill.greedy(1, Duration.ofHours(1)), FailurePolicy.CLOSED)).build();
        Customer alice = Customer.of("alice", "free");
        service.decide(alice, null);
        List<?> keys = (List<?>) resp.command("KEYS", "corrupt:*:p");
        assertThat(keys).hasSize(1);
        resp.command("DEL", (String) keys.get(0));
        resp.command("SADD", (String) keys.get(0), "x");

        QuotaDecision decision = service.decide(alice, null);

        assertThat(decision.outcome()).isEqualTo(QuotaDecision.Outcome.ALLOWED);
        assertThat(decision.limits().get(0).remaining()).isEqualTo(9);
    }

    @Test
    void redisRestartedEmpty_requestsWorkAgainOnFreshBuckets() {
        BucketKey key = freshKey();
        store.tryConsume(key, SPEC, 6);
        resp.close();

        redis.server().restart();

        // Redisson reconnects in the background: the first requests may still fail (a store failure
        // counts as "not yet")
        ConsumeResult result = Await.result(Duration.ofSeconds(10), () -> store.tryConsume(key, SPEC, 1),
                () -> "a consume after the restart");
        resp = RespClient.connect(redis.server().host(), redis.server().port());
        assertThat(result).as("a consume succeeded within 10 s of the restart").isNotNull();
        assertThat(result.remaining()).containsExactly(9);
    }
}
