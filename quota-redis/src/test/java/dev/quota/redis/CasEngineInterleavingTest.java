package dev.quota.redis;

import static dev.quota.redis.HeldReplies.awaitUntil;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Limit;
import dev.quota.core.QuotaStoreException;
import dev.quota.core.Refill;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.testkit.MutableClock;
import dev.quota.testkit.RedisExtension;
import java.time.Duration;
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
    private static final BucketSpec TEN = new BucketSpec(
            List.of(new Limit("burst", 10, Refill.greedy(10, Duration.ofMinutes(1)))), 1);

    private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
    private final AtomicLong wall = new AtomicLong();
    private @Nullable HeldReplies replies;
    private RedisStore store;

    @BeforeEach
    void open() {
        RedisStoreBuilder builder = RedisStore.builder().uri(redis.uri()).clock(clock);
        builder.link = link -> replies = new HeldReplies(link);
        builder.wallNanos = wall::get;
        store = builder.build();
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
    void jobBehindKeyInFlight_isSentWhenTheReplyIsReleased_notBefore() {
        BucketKey key = freshKey();
        replies().hold();
        Caller first = Caller.consume(store, key, 1);
        awaitUntil(() -> replies().sent() == 1);
        Caller second = Caller.consume(store, key, 2);
        awaitUntil(() -> store.engine().heldCount() == 1);

        assertThat(replies().sent()).isEqualTo(1);
        replies().release(0);
        assertThat(first.remaining()).isEqualTo(9);
        awaitUntil(() -> replies().sent() == 2);
        assertThat(second.finished()).isFalse();
        replies().release(1);

        assertThat(second.remaining()).isEqualTo(7);
        assertThat(replies().sent()).isEqualTo(2);
    }

    @Test
    void conflictOnOneScript_whileAnotherIsInFlight_isComputedAgainAndSentAlone() {
        BucketKey quiet = freshKey();
        BucketKey contended = freshKey();
        assertThat(store.tryConsume(contended, TEN, 1).remaining()).containsExactly(9); // remembered: 9
        try (RedisStore other = RedisStore.builder().uri(redis.uri()).clock(clock).build()) {
            assertThat(other.tryConsume(contended, TEN, 3).remaining()).containsExactly(6); // Redis: 6
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
        awaitUntil(() -> replies().sent() == 2);
        replies().release(1); // assumed absent (forgotten after the failure): Redis answers 6
        awaitUntil(() -> replies().sent() == 3);
        replies().release(2);
        assertThat(next.remaining()).isEqualTo(5);
    }

    @Test
    void errorThrownFromSend_failsTheJobsItCarried_andTheEngineGoesOn() {
        BucketKey key = freshKey();
        replies().hold();
        Caller first = Caller.consume(store, key, 1);
        awaitUntil(() -> replies().sent() == 1);
        Caller second = Caller.consume(store, key, 1);
        awaitUntil(() -> store.engine().heldCount() == 1);
        Caller third = Caller.consume(store, key, 1);
        awaitUntil(() -> store.engine().heldCount() == 2);
        replies().onNextSend(() -> {
            throw new SendFailed();
        });

        replies().release(0);

        // the thread that stepped sees the Error itself; the jobs of the failed send see it as a store failure
        int errors = 0;
        for (Caller caller : List.of(first, second, third)) {
            Throwable outcome = caller.outcome();
            if (outcome instanceof SendFailed) {
                errors++;
            } else if (caller == first) {
                assertThat(outcome).isNull();
            } else {
                assertThat(outcome).isInstanceOf(QuotaStoreException.class).hasCauseInstanceOf(SendFailed.class);
            }
        }
        assertThat(errors).isEqualTo(1);
        assertThat(replies().sent()).isEqualTo(1);
        Caller after = Caller.consume(store, key, 1);
        awaitUntil(() -> replies().sent() == 2);
        replies().release(1);
        assertThat(after.remaining()).isEqualTo(8); // the first's token taken; the failed send's never
    }

    @Test
    void interruptedWaitingCaller_stopsWaiting_keepsItsInterrupt_andIsNeverSent() {
        BucketKey key = freshKey();
        replies().hold();
        Caller first = Caller.consume(store, key, 1);
        awaitUntil(() -> replies().sent() == 1);
        Caller waiting = Caller.consume(store, key, 2);
        awaitUntil(() -> store.engine().heldCount() == 1);

        waiting.thread.interrupt();

        assertThat(waiting.failure(QuotaStoreException.class)).hasMessageContaining("interrupted");
        assertThat(waiting.interruptedAtEnd.get()).isTrue();
        replies().release(0);
        assertThat(first.remaining()).isEqualTo(9);
        Caller after = Caller.consume(store, key, 1);
        awaitUntil(() -> replies().sent() == 2);
        replies().release(1);
        assertThat(after.remaining()).isEqualTo(8); // the interrupted caller's 2 were never taken
    }

    @Test
    void interruptedCombiner_failsNoOtherCallersJob() {
        BucketKey key = freshKey();
        replies().hold();
        Caller first = Caller.consume(store, key, 1);
        awaitUntil(() -> replies().sent() == 1);
        Caller second = Caller.consume(store, key, 1);
        awaitUntil(() -> store.engine().heldCount() == 1);
        Caller third = Caller.consume(store, key, 1);
        awaitUntil(() -> store.engine().heldCount() == 2);
        AtomicReference<Thread> combiner = new AtomicReference<>();
        replies().onNextSend(() -> { // interrupted while it steps for everyone
            combiner.set(Thread.currentThread());
            Thread.currentThread().interrupt();
        });

        replies().release(0);
        awaitUntil(() -> replies().sent() == 2);
        replies().release(1);

        long[] expected = {9, 8, 7};
        List<Caller> callers = List.of(first, second, third);
        for (int i = 0; i < callers.size(); i++) {
            Caller caller = callers.get(i);
            if (caller.thread == combiner.get() && caller.outcome() != null) {
                // interrupted with its job still out: it stopped waiting, its interrupt kept
                assertThat(caller.outcome()).isInstanceOf(QuotaStoreException.class).hasMessageContaining("interrupted");
                assertThat(caller.interruptedAtEnd.get()).isTrue();
            } else {
                assertThat(caller.remaining()).isEqualTo(expected[i]);
            }
        }
        assertThat(combiner.get()).isIn(first.thread, second.thread, third.thread);
        Caller after = Caller.consume(store, key, 1);
        awaitUntil(() -> replies().sent() == 3);
        replies().release(2);
        assertThat(after.remaining()).isEqualTo(6); // all three taken: the send went out for everyone
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
            Caller[] self = new Caller[1];
            self[0] = new Caller(() -> {
                Caller caller = self[0];
                try {
                    caller.result.complete(store.tryConsume(key, TEN, tokens));
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
