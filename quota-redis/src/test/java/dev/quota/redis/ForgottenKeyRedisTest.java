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
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A key the store forgot past its bound of remembered keys ({@code maxRememberedKeys}) while Redis
 * still holds it. It used to be assumed absent: the compare-and-swap carrying it found it present
 * and wrote nothing, so every decision in that script was computed again, a conflict on one
 * instance (a million customers making transfers under {@code -Xmx1g}: 0.42 a decision). Now it is
 * read first, and only its own decision pays that round trip. Commands are counted by the server
 * ({@code INFO commandstats}, the ones a script runs included); time is frozen.
 */
@Timeout(60)
class ForgottenKeyRedisTest {

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    /** 10 tokens, 10 a minute: nothing refills while time stands still. */
    private static final BucketSpec TEN = BucketSpec.of(
            List.of(new Limit("burst", 10, Refill.greedy(10, Duration.ofMinutes(1)))), 1);
    /** Room for eight keys: the hot tier alone, least recently used first out. */
    private static final int BOUND = 8;

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

    @AfterEach
    void close() {
        if (store != null) {
            store.close();
        }
    }

    private RedisStore store() {
        return RedisStore.builder().uri(redis.uri()).clock(clock).maxRememberedKeys(BOUND).build();
    }

    @Test
    void forgottenKey_isReadFirst_andFailsNoOtherDecisionInItsRound() {
        store = store();
        BucketKey shared = freshKey();
        BucketKey forgotten = freshKey();
        BucketKey first = freshKey();
        BucketKey second = freshKey();
        assertThat(store.tryConsume(forgotten, TEN, 1).remaining()).containsExactly(9);
        for (int i = 0; i < BOUND; i++) {
            store.tryConsume(freshKey(), TEN, 1); // pushes the forgotten key out, unexpired
        }
        store.tryConsume(shared, TEN, 1); // remembered, as the key every decision takes from is
        resetStats();
        long conflicts = store.conflicts();

        // three callers' decisions in one round, each on the shared key and one of its own
        List<List<ConsumeResult>> three = store.engine().consumeAll(List.of(
                List.of(take(shared), take(forgotten)),
                List.of(take(shared), take(first)),
                List.of(take(shared), take(second))));

        assertThat(three.get(0).get(1).remaining()).as("the forgotten key, as Redis held it").containsExactly(8);
        assertThat(three.get(1).get(1).remaining()).containsExactly(9);
        assertThat(three.get(2).get(1).remaining()).containsExactly(9);
        assertThat(List.of(three.get(0).get(0), three.get(1).get(0), three.get(2).get(0)))
                .extracting(result -> result.remaining()[0]).containsExactlyInAnyOrder(8L, 7L, 6L);
        assertThat(store.conflicts() - conflicts).as("scripts that found a key changed").isZero();
        // one read of the forgotten key; the new keys' script and the forgotten key's, each
        // checking (GET) and writing (SET) its keys
        assertThat(calls()).containsExactlyInAnyOrderEntriesOf(
                Map.of("mget", 1L, "evalsha", 2L, "get", 5L, "set", 5L));
        assertThat(store.tryConsume(forgotten, TEN, 1).remaining()).as("remembered again").containsExactly(7);
    }

    /** Three forgotten keys and a new one, in one decision: one command reads them all, one script writes. */
    @Test
    void forgottenKeysOfOneDecision_costOneReadTogether() {
        store = store();
        BucketKey a = freshKey();
        BucketKey b = freshKey();
        BucketKey c = freshKey();
        store.tryConsume(List.of(take(a), take(b), take(c)));
        for (int i = 0; i < BOUND; i++) {
            store.tryConsume(freshKey(), TEN, 1);
        }
        resetStats();

        List<ConsumeResult> again = store.tryConsume(List.of(take(a), take(b), take(c), take(freshKey())));

        assertThat(again).extracting(result -> result.remaining()[0]).containsExactly(8L, 8L, 8L, 9L);
        assertThat(calls()).containsExactlyInAnyOrderEntriesOf(
                Map.of("mget", 1L, "evalsha", 1L, "get", 4L, "set", 4L));
    }

    /**
     * With one key of a decision forgotten, every key of it the store does not remember is read in
     * the same command: a customer's keys are forgotten together, and the note of one may have been
     * pushed out. Here the other key was written by another instance and never seen by this one.
     */
    @Test
    void keyNotRememberedBesideAForgottenOne_isReadWithIt_inOneCommand() {
        store = store();
        BucketKey forgotten = freshKey();
        BucketKey elsewhere = freshKey();
        store.tryConsume(forgotten, TEN, 1);
        for (int i = 0; i < BOUND; i++) {
            store.tryConsume(freshKey(), TEN, 1);
        }
        try (RedisStore other = store()) {
            other.tryConsume(elsewhere, TEN, 3);
        }
        resetStats();
        long conflicts = store.conflicts();

        List<ConsumeResult> both = store.tryConsume(List.of(take(forgotten), take(elsewhere)));

        assertThat(both).extracting(result -> result.remaining()[0]).containsExactly(8L, 6L);
        assertThat(store.conflicts() - conflicts).isZero();
        assertThat(calls()).containsExactlyInAnyOrderEntriesOf(
                Map.of("mget", 1L, "evalsha", 1L, "get", 2L, "set", 2L));
    }

    /**
     * The read of a forgotten key goes on the connection the store holds for its scripts, in order
     * with them, not through the client's executor (a pooled connection taken and given back, its
     * timers and promises: about 2 KB and the CPU of it a read, paid by most decisions once the
     * keys in use outnumber the bound).
     */
    @Test
    void forgottenKeysRead_goesOnTheHeldConnection_withTheScripts() throws Exception {
        store = store();
        BucketKey forgotten = freshKey();
        store.tryConsume(forgotten, TEN, 1);
        for (int i = 0; i < BOUND; i++) {
            store.tryConsume(freshKey(), TEN, 1);
        }
        List<HeldConnectionsTest.Command> commands;
        try (HeldConnectionsTest.Monitor monitor = new HeldConnectionsTest.Monitor(
                redis.server().host(), redis.server().port())) {
            assertThat(store.tryConsume(forgotten, TEN, 1).remaining()).containsExactly(8);
            commands = monitor.commands(Set.of("MGET", "EVALSHA"), 2);
        }

        assertThat(commands).extracting(HeldConnectionsTest.Command::name).containsExactly("MGET", "EVALSHA");
        assertThat(commands).extracting(HeldConnectionsTest.Command::firstKey).containsOnly(forgotten.value());
        assertThat(commands.get(0).client()).as("the read's connection").isEqualTo(commands.get(1).client());
    }

    /**
     * A key another instance wrote is still assumed absent by one that never saw it, and its script
     * fails; the new key beside it, which the script found absent, is not read when the decision is
     * computed again.
     */
    @Test
    void keyAnotherInstanceWrote_isTakenFromInTheFirstScript_andTheNewKeyBesideItIsNotRead() {
        store = store();
        BucketKey elsewhere = freshKey();
        BucketKey fresh = freshKey();
        try (RedisStore other = store()) {
            other.tryConsume(elsewhere, TEN, 3);
        }
        resetStats();
        long conflicts = store.conflicts();

        List<ConsumeResult> both = store.tryConsume(List.of(take(elsewhere), take(fresh)));

        assertThat(both).extracting(result -> result.remaining()[0]).containsExactly(6L, 9L);
        assertThat(store.conflicts() - conflicts).isEqualTo(1);
        // the key assumed absent holds 7: the script takes the decision's token from those, in the
        // same script (and reads the key's TTL to keep it); still a key another instance changed
        assertThat(calls()).containsExactlyInAnyOrderEntriesOf(Map.of("evalsha", 1L, "get", 2L, "set", 2L,
                "pttl", 1L));
    }

    private static Take take(BucketKey key) {
        return Take.of(key, TEN, 1, 0);
    }

    private static BucketKey freshKey() {
        return new BucketKey("quota-forgotten:{" + UUID.randomUUID() + "}");
    }

    private static void resetStats() {
        admin.command("CONFIG", "RESETSTAT");
    }

    /** Calls of each command the server ran since the last reset, those a script ran included. */
    private static Map<String, Long> calls() {
        return ServerCalls.since(admin);
    }
}
