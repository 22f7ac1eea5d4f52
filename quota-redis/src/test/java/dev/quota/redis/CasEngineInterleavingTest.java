package dev.quota.redis;

import static dev.quota.redis.HeldReplies.awaitUntil;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Limit;
import dev.quota.core.QuotaStoreException;
import dev.quota.core.Refill;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.redis.internal.engine.KeysInFlight;
import dev.quota.redis.internal.transport.HeldConnections;
import dev.quota.redis.internal.transport.RedisLink;
import dev.quota.redis.internal.transport.RedissonLink;
import dev.quota.testkit.MutableClock;
import dev.quota.testkit.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The engine's interleavings, each forced in one order: a real Redis answers every script, and
 * the test holds each reply until it releases it ({@link HeldReplies}), so the store's own code
 * runs with replies arriving in the order chosen. The store has the settings a user gets; time is
 * frozen (the store's clock and the engine's flight clock), so every figure is exact.
 */
@Timeout(60)
class CasEngineInterleavingTest {

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    /** 10 tokens, 10 a minute: nothing refills while time stands still. */
    private static final BucketSpec TEN = BucketSpec.of(
            List.of(new Limit("burst", 10, Refill.greedy(10, Duration.ofMinutes(1)))), 1);
    /**
     * {@link #TEN} as another instance's reloaded config has it, for its writes in the conflict
     * tests: a newer version whose refill is slower. A state of another configuration is one the
     * script does not take from in the first try (StoredTake), so these tests pin the plain path,
     * where the script answers what the key holds and the decision is computed again; while time
     * stands still the two configurations hold the same tokens.
     */
    private static final BucketSpec TEN_NEWER = BucketSpec.of(
            List.of(new Limit("burst", 10, Refill.greedy(10, Duration.ofMinutes(2)))), 2);
    /** Room for a full pipeline and more: {@link #DEEP_CAPACITY} tokens, none refilled while time stands still. */
    private static final long DEEP_CAPACITY = 2L * KeysInFlight.MAX_DEPTH + 8;
    private static final BucketSpec DEEP = BucketSpec.of(
            List.of(new Limit("burst", DEEP_CAPACITY, Refill.greedy(DEEP_CAPACITY, Duration.ofMinutes(1)))), 1);

    private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
    private final AtomicLong wall = new AtomicLong();
    private @Nullable HeldReplies replies;
    private RedisStore store;

    @BeforeEach
    void open() {
        RedisStoreBuilder builder = RedisStore.builder().uri(redis.uri()).clock(clock);
        RedisLink[] redisson = new RedisLink[1];
        builder.link = link -> {
            redisson[0] = link;
            HeldReplies wrapped = new HeldReplies(link);
            replies = wrapped;
            return wrapped;
        };
        builder.wallNanos = wall::get;
        store = builder.build();
        // the held connection taken before the test sends: while it is being taken from the pool a
        // script goes through Redisson's executor, on another connection, and a script pipelined
        // behind it on the held one could reach Redis first and find the key changed (a conflict,
        // never an admission), which is not the order a test here pins
        HeldConnections held = ((RedissonLink) redisson[0]).held();
        awaitUntil(() -> held.connection("interleaving:held") != null);
    }

    @AfterEach
    void close() {
        store.close();
    }

    private HeldReplies replies() {
        assertThat(replies).isNotNull();
        return replies;
    }

    @Test
    void secondScript_isSentBeforeTheFirstIsAnswered_andTheirRepliesSettleInEitherOrder() {
        BucketKey key = freshKey();
        replies().hold();
        Caller first = Caller.consume(store, key, 1);
        awaitUntil(() -> replies().sent() == 1);
        replies().awaitRedis(0); // Redis ran it (9 left); the engine has not seen the reply
        Caller second = Caller.consume(store, key, 2);
        awaitUntil(() -> replies().sent() == 2); // computed on the 9 the first leaves, expecting them
        replies().awaitRedis(1);

        replies().release(1); // the later reply settles first
        assertThat(second.remaining()).isEqualTo(7);
        assertThat(first.finished()).isFalse();
        replies().release(0);
        assertThat(first.remaining()).isEqualTo(9);

        Caller third = Caller.consume(store, key, 1); // on the 7 the newest reply confirmed, not the older 9
        awaitUntil(() -> replies().sent() == 3);
        replies().release(2);
        assertThat(third.remaining()).isEqualTo(6);
        assertThat(replies().sent()).isEqualTo(3);
        assertThat(store.conflicts()).isZero();
    }

    @Test
    void firstPipelinedScriptConflicting_failsTheOneBehindIt_andEachDecisionIsMadeOnceFromTheAnswer() {
        BucketKey key = freshKey();
        assertThat(store.tryConsume(key, TEN, 1).remaining()).containsExactly(9); // remembered: 9
        try (RedisStore other = RedisStore.builder().uri(redis.uri()).clock(clock).build()) {
            assertThat(other.tryConsume(key, TEN_NEWER, 3).remaining()).containsExactly(6); // Redis: 6
        }
        replies().hold();
        Caller first = Caller.consume(store, key, 1); // expects 9: finds 6
        awaitUntil(() -> replies().sent() == 1);
        replies().awaitRedis(0);
        Caller second = Caller.consume(store, key, 2); // expects the 8 the first would leave: finds 6
        awaitUntil(() -> replies().sent() == 2);
        replies().awaitRedis(1);

        replies().release(0);
        awaitUntil(() -> store.engine().heldCount() == 1); // computed again only once the key's replies are in
        assertThat(replies().sent()).isEqualTo(2);
        replies().release(1);
        awaitUntil(() -> replies().sent() == 3); // both, on the 6 Redis answered, in one script
        replies().release(2);

        // the second's reply settled last, so its job is first in line
        assertThat(second.remaining()).isEqualTo(4);
        assertThat(first.remaining()).isEqualTo(3);
        assertThat(replies().sent()).isEqualTo(3);
        assertThat(store.conflicts()).isEqualTo(2);
        try (RedisStore other = RedisStore.builder().uri(redis.uri()).clock(clock).build()) {
            assertThat(other.peek(key, TEN).remaining()).containsExactly(3); // 1 + 3 + 1 + 2 taken, no more
        }
    }

    @Test
    void timeoutMidPipeline_failsTheUnansweredScriptInDoubt_andKeepsWhatTheLaterOneConfirmed() {
        BucketKey key = freshKey();
        replies().hold();
        Caller first = Caller.consume(store, key, 4);
        awaitUntil(() -> replies().sent() == 1);
        replies().awaitRedis(0); // Redis ran it (6 left); only its reply is late
        Caller second = Caller.consume(store, key, 1);
        awaitUntil(() -> replies().sent() == 2);
        replies().release(1); // written on the 6 the first left: 5
        assertThat(second.remaining()).isEqualTo(5);

        wall.addAndGet(RedisStoreBuilder.DEFAULT_TIMEOUT.toNanos() + 1);

        QuotaStoreException failure = first.failure(QuotaStoreException.class);
        assertThat(failure.inDoubt()).isTrue();
        assertThat(failure).hasMessageContaining("did not answer within 2000 ms");
        Caller next = Caller.consume(store, key, 1); // on the 5 the later script confirmed: one script
        awaitUntil(() -> replies().sent() == 3);
        replies().release(2);
        assertThat(next.remaining()).isEqualTo(4); // the first's 4 stay taken, paid for by its refusal
        assertThat(replies().sent()).isEqualTo(3);
        assertThat(store.conflicts()).isZero();
    }

    @Test
    void keyAnotherInstanceWrote_isNotPipelinedFor100Ms_thenIsAgain() {
        BucketKey key = freshKey();
        assertThat(store.tryConsume(key, TEN, 1).remaining()).containsExactly(9); // remembered: 9
        try (RedisStore other = RedisStore.builder().uri(redis.uri()).clock(clock).build()) {
            assertThat(other.tryConsume(key, TEN_NEWER, 3).remaining()).containsExactly(6); // Redis: 6
        }
        replies().hold();
        Caller first = Caller.consume(store, key, 1);
        awaitUntil(() -> replies().sent() == 1);
        replies().release(0); // expected 9, Redis holds 6: a conflict
        awaitUntil(() -> replies().sent() == 2); // computed again on the 6 answered
        Caller second = Caller.consume(store, key, 1);
        awaitUntil(() -> store.engine().heldCount() == 1); // the key is contested: waits for the reply

        assertThat(replies().sent()).isEqualTo(2);
        replies().release(1);
        assertThat(first.remaining()).isEqualTo(5);
        awaitUntil(() -> replies().sent() == 3);
        replies().release(2);
        assertThat(second.remaining()).isEqualTo(4);

        wall.addAndGet(KeysInFlight.CONTESTED_NANOS);
        Caller third = Caller.consume(store, key, 1);
        awaitUntil(() -> replies().sent() == 4);
        Caller fourth = Caller.consume(store, key, 1);
        awaitUntil(() -> replies().sent() == 5); // pipelined again, before the third's reply
        releaseAll(3, 5);
        assertThat(third.remaining()).isEqualTo(3);
        assertThat(fourth.remaining()).isEqualTo(2);
        assertThat(store.conflicts()).isEqualTo(1);
    }

    @Test
    void refusalBehindThisInstancesScriptInFlight_waitsForItsReply_andStandsWithoutAScript() {
        BucketKey key = freshKey();
        assertThat(store.tryConsume(key, TEN, 9).remaining()).containsExactly(1); // confirmed: 1 left
        replies().hold();
        Caller last = Caller.consume(store, key, 1);
        awaitUntil(() -> replies().sent() == 1); // takes the last token
        Caller refused = Caller.consume(store, key, 1);
        // refused on the 0 it leaves: waits for its reply (sent as a script of its own, it would be a second)
        awaitUntil(() -> store.engine().heldCount() == 1 || replies().sent() > 1);

        assertThat(replies().sent()).isEqualTo(1);
        replies().release(0);
        assertThat(last.remaining()).isZero();
        ConsumeResult answer = refused.result.join();
        assertThat(answer.tokensTaken()).isFalse();
        assertThat(answer.remaining()).containsExactly(0);
        assertThat(answer.nanosToWait()).isEqualTo(Duration.ofSeconds(6).toNanos()); // 10 a minute
        assertThat(replies().sent()).isEqualTo(1); // stood on the state the reply confirmed: no script
    }

    @Test
    void refusalWaitingForAReply_thatFindsAnotherTakeSentMeanwhile_waitsForThatOneToo_andStandsWithoutAScript() {
        BucketKey key = freshKey();
        assertThat(store.tryConsume(key, TEN, 8).remaining()).containsExactly(2); // confirmed: 2 left
        replies().hold();
        Caller first = Caller.consume(store, key, 1);
        awaitUntil(() -> replies().sent() == 1); // leaves 1
        Caller refused = Caller.consume(store, key, 2);
        awaitUntil(() -> store.engine().heldCount() == 1 || replies().sent() > 1); // refused on the 1: waits
        Caller second = Caller.consume(store, key, 1);
        awaitUntil(() -> replies().sent() == 2); // pipelined behind the first: leaves 0

        replies().release(0); // the refusal is computed again, on the 0 the second leaves: waits again
        assertThat(first.remaining()).isEqualTo(1);
        awaitUntil(() -> store.engine().heldCount() == 1 || replies().sent() > 2);
        assertThat(replies().sent()).isEqualTo(2);
        replies().release(1);
        assertThat(second.remaining()).isZero();
        ConsumeResult answer = refused.result.join();
        assertThat(answer.tokensTaken()).isFalse();
        assertThat(answer.remaining()).containsExactly(0);
        assertThat(replies().sent()).isEqualTo(2); // stood on the state the second reply confirmed
    }

    @Test
    void refusalWaitingForAReply_thatFindsTheKeyChanged_isComputedAgainOnTheAnswer() {
        BucketKey key = freshKey();
        assertThat(store.tryConsume(key, TEN, 9).remaining()).containsExactly(1); // remembered: 1
        try (RedisStore other = RedisStore.builder().uri(redis.uri()).clock(clock).build()) {
            other.addTokens(key, TEN, 5); // another instance gave 5 back: Redis holds 6
        }
        replies().hold();
        Caller first = Caller.consume(store, key, 1);
        awaitUntil(() -> replies().sent() == 1); // computed on the remembered 1
        Caller second = Caller.consume(store, key, 1);
        awaitUntil(() -> store.engine().heldCount() == 1 || replies().sent() > 1); // refused on the 0 the first leaves

        assertThat(replies().sent()).isEqualTo(1); // it waits for the first's reply
        replies().release(0); // expected 1, Redis holds 6: both computed again on the 6 answered
        awaitUntil(() -> replies().sent() == 2);
        replies().release(1);
        assertThat(first.remaining()).isEqualTo(5);
        assertThat(second.remaining()).isEqualTo(4);
        assertThat(store.conflicts()).isEqualTo(1);
    }

    @Test
    void jobPastThePipelineDepth_isSentWhenAReplyIsReleased_notBefore() {
        BucketKey key = freshKey();
        replies().hold();
        List<Caller> pipelined = fillPipeline(key);
        Caller past = Caller.consume(store, key, DEEP, 2);
        awaitUntil(() -> store.engine().heldCount() == 1);

        assertThat(replies().sent()).isEqualTo(KeysInFlight.MAX_DEPTH);
        replies().release(0);
        assertThat(pipelined.get(0).remaining()).isEqualTo(DEEP_CAPACITY - 1);
        awaitUntil(() -> replies().sent() == KeysInFlight.MAX_DEPTH + 1);
        assertThat(past.finished()).isFalse();
        releaseAll(1, KeysInFlight.MAX_DEPTH + 1);

        for (int i = 0; i < pipelined.size(); i++) {
            assertThat(pipelined.get(i).remaining()).isEqualTo(DEEP_CAPACITY - 1 - i);
        }
        assertThat(past.remaining()).isEqualTo(DEEP_CAPACITY - 2 - KeysInFlight.MAX_DEPTH);
        assertThat(replies().sent()).isEqualTo(KeysInFlight.MAX_DEPTH + 1);
    }

    @Test
    void conflictOnOneScript_whileAnotherIsInFlight_isComputedAgainAndSentAlone() {
        BucketKey quiet = freshKey();
        BucketKey contended = freshKey();
        assertThat(store.tryConsume(contended, TEN, 1).remaining()).containsExactly(9); // remembered: 9
        try (RedisStore other = RedisStore.builder().uri(redis.uri()).clock(clock).build()) {
            assertThat(other.tryConsume(contended, TEN_NEWER, 3).remaining()).containsExactly(6); // Redis: 6
        }
        replies().hold();
        Caller onQuiet = Caller.consume(store, quiet, 1);
        awaitUntil(() -> replies().sent() == 1);
        Caller onContended = Caller.consume(store, contended, 1);
        awaitUntil(() -> replies().sent() == 2);

        replies().release(1); // expected 9 remembered, Redis holds 6: written nothing, answered 6
        awaitUntil(() -> replies().sent() == 3); // computed again on 6, while the first is still out
        assertThat(onQuiet.finished()).isFalse();
        replies().release(2);
        assertThat(onContended.remaining()).isEqualTo(5);
        replies().release(0);
        assertThat(onQuiet.remaining()).isEqualTo(9);
    }

    @Test
    void scriptUnansweredPastTheTimeout_failsInDoubt_andTokensItTookStayTaken() {
        BucketKey key = freshKey();
        replies().hold();
        Caller caller = Caller.consume(store, key, 4);
        awaitUntil(() -> replies().sent() == 1);
        replies().awaitRedis(0); // Redis ran it; only the reply is late

        wall.addAndGet(RedisStoreBuilder.DEFAULT_TIMEOUT.toNanos() + 1);

        QuotaStoreException failure = caller.failure(QuotaStoreException.class);
        assertThat(failure.inDoubt()).isTrue();
        assertThat(failure).hasMessageContaining("did not answer within 2000 ms");
        Caller next = Caller.consume(store, key, 1);
        awaitUntil(() -> replies().sent() == 2); // read first (forgotten in doubt): computed on the 6 Redis holds
        replies().release(1);
        assertThat(next.remaining()).isEqualTo(5);
        assertThat(replies().sent()).isEqualTo(2);
        assertThat(store.conflicts()).isZero();
    }

    @Test
    void errorThrownFromSend_failsTheJobsItCarried_andTheEngineGoesOn() {
        BucketKey key = freshKey();
        replies().hold();
        List<Caller> pipelined = fillPipeline(key);
        Caller second = Caller.consume(store, key, DEEP, 1);
        awaitUntil(() -> store.engine().heldCount() == 1);
        Caller third = Caller.consume(store, key, DEEP, 1);
        awaitUntil(() -> store.engine().heldCount() == 2);
        replies().onNextSend(() -> {
            throw new SendFailed();
        });

        replies().release(0);
        releaseAll(1, KeysInFlight.MAX_DEPTH);

        // the thread that stepped sees the Error itself; the jobs of the failed send see it as a store failure
        int errors = 0;
        List<Caller> callers = new ArrayList<>(pipelined);
        callers.addAll(List.of(second, third));
        for (Caller caller : callers) {
            Throwable outcome = caller.outcome();
            if (outcome instanceof SendFailed) {
                errors++;
            } else if (pipelined.contains(caller)) {
                assertThat(outcome).isNull();
            } else {
                assertThat(outcome).isInstanceOf(QuotaStoreException.class).hasCauseInstanceOf(SendFailed.class);
            }
        }
        assertThat(errors).isEqualTo(1);
        assertThat(replies().sent()).isEqualTo(KeysInFlight.MAX_DEPTH);
        Caller after = Caller.consume(store, key, DEEP, 1);
        awaitUntil(() -> replies().sent() == KeysInFlight.MAX_DEPTH + 1);
        replies().release(KeysInFlight.MAX_DEPTH);
        // the pipelined callers' tokens taken; the failed send's never
        assertThat(after.remaining()).isEqualTo(DEEP_CAPACITY - 1 - KeysInFlight.MAX_DEPTH);
    }

    @Test
    void interruptedWaitingCaller_stopsWaiting_keepsItsInterrupt_andIsNeverSent() {
        BucketKey key = freshKey();
        replies().hold();
        List<Caller> pipelined = fillPipeline(key);
        Caller waiting = Caller.consume(store, key, DEEP, 2);
        awaitUntil(() -> store.engine().heldCount() == 1);

        waiting.thread.interrupt();

        assertThat(waiting.failure(QuotaStoreException.class)).hasMessageContaining("interrupted");
        assertThat(waiting.interruptedAtEnd.get()).isTrue();
        releaseAll(0, KeysInFlight.MAX_DEPTH);
        assertThat(pipelined.get(KeysInFlight.MAX_DEPTH - 1).remaining()).isEqualTo(DEEP_CAPACITY - KeysInFlight.MAX_DEPTH);
        Caller after = Caller.consume(store, key, DEEP, 1);
        awaitUntil(() -> replies().sent() == KeysInFlight.MAX_DEPTH + 1);
        replies().release(KeysInFlight.MAX_DEPTH);
        // the interrupted caller's 2 were never taken
        assertThat(after.remaining()).isEqualTo(DEEP_CAPACITY - 1 - KeysInFlight.MAX_DEPTH);
    }

    @Test
    void interruptedCombiner_failsNoOtherCallersJob() {
        BucketKey key = freshKey();
        replies().hold();
        List<Caller> pipelined = fillPipeline(key);
        Caller second = Caller.consume(store, key, DEEP, 1);
        awaitUntil(() -> store.engine().heldCount() == 1);
        Caller third = Caller.consume(store, key, DEEP, 1);
        awaitUntil(() -> store.engine().heldCount() == 2);
        AtomicReference<Thread> combiner = new AtomicReference<>();
        replies().onNextSend(() -> { // interrupted while it steps for everyone
            combiner.set(Thread.currentThread());
            Thread.currentThread().interrupt();
        });

        replies().release(0);
        awaitUntil(() -> replies().sent() == KeysInFlight.MAX_DEPTH + 1); // the two held, in one script
        releaseAll(1, KeysInFlight.MAX_DEPTH + 1);

        List<Caller> callers = new ArrayList<>(pipelined);
        callers.addAll(List.of(second, third));
        for (int i = 0; i < callers.size(); i++) {
            Caller caller = callers.get(i);
            if (caller.thread == combiner.get() && caller.outcome() != null) {
                // interrupted with its job still out: it stopped waiting, its interrupt kept
                assertThat(caller.outcome()).isInstanceOf(QuotaStoreException.class).hasMessageContaining("interrupted");
                assertThat(caller.interruptedAtEnd.get()).isTrue();
            } else {
                assertThat(caller.remaining()).isEqualTo(DEEP_CAPACITY - 1 - i);
            }
        }
        assertThat(callers.stream().map(caller -> caller.thread)).contains(combiner.get());
        Caller after = Caller.consume(store, key, DEEP, 1);
        awaitUntil(() -> replies().sent() == KeysInFlight.MAX_DEPTH + 2);
        replies().release(KeysInFlight.MAX_DEPTH + 1);
        // every one taken: the send went out for everyone
        assertThat(after.remaining()).isEqualTo(DEEP_CAPACITY - callers.size() - 1);
    }

    /** {@link KeysInFlight.MAX_DEPTH} callers taking 1 each, each in a script of its own, all sent, none answered. */
    private List<Caller> fillPipeline(BucketKey key) {
        List<Caller> callers = new ArrayList<>();
        for (int i = 0; i < KeysInFlight.MAX_DEPTH; i++) {
            callers.add(Caller.consume(store, key, DEEP, 1));
            int sent = i + 1;
            awaitUntil(() -> replies().sent() == sent);
        }
        return callers;
    }

    /** Releases the held replies {@code from} (inclusive) to {@code to} (exclusive). */
    private void releaseAll(int from, int to) {
        for (int i = from; i < to; i++) {
            replies().release(i);
        }
    }

    private static BucketKey freshKey() {
        return new BucketKey("interleaving:" + UUID.randomUUID());
    }

    /** An Error from the Redis client as it sends (a linkage error, out of memory). */
    private static final class SendFailed extends Error {
        SendFailed() {
            super("send failed");
        }
    }

    /** One caller's decision on a thread of its own. */
    private static final class Caller {
        final CompletableFuture<ConsumeResult> result = new CompletableFuture<>();
        final AtomicReference<@Nullable Boolean> interruptedAtEnd = new AtomicReference<>();
        final Thread thread;

        private Caller(Runnable body) {
            thread = new Thread(body, "caller");
            thread.setDaemon(true);
        }

        static Caller consume(RedisStore store, BucketKey key, long tokens) {
            return consume(store, key, TEN, tokens);
        }

        static Caller consume(RedisStore store, BucketKey key, BucketSpec spec, long tokens) {
            Caller[] self = new Caller[1];
            self[0] = new Caller(() -> {
                Caller caller = self[0];
                try {
                    caller.result.complete(store.tryConsume(key, spec, tokens));
                } catch (Throwable t) {
                    caller.result.completeExceptionally(t);
                } finally {
                    caller.interruptedAtEnd.set(Thread.currentThread().isInterrupted());
                }
            });
            self[0].thread.start();
            return self[0];
        }

        boolean finished() {
            return result.isDone();
        }

        /** Waits for the decision; null when it was made, else what was thrown. */
        @Nullable Throwable outcome() {
            try {
                result.join();
                join();
                return null;
            } catch (java.util.concurrent.CompletionException e) {
                join();
                return e.getCause();
            }
        }

        long remaining() {
            ConsumeResult decided = result.join();
            assertThat(decided.tokensTaken()).isTrue();
            return decided.remaining()[0];
        }

        <T extends Throwable> T failure(Class<T> type) {
            Throwable thrown = outcome();
            assertThat(thrown).isInstanceOf(type);
            return type.cast(thrown);
        }

        private void join() {
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }
}
