package dev.quota.redis;

import dev.quota.redis.internal.encoding.CasKey;
import dev.quota.redis.internal.transport.RedisLink;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;

/**
 * A {@link RedisLink} that sends every command to the real Redis but, while {@link #hold holding},
 * keeps each compare-and-swap script's reply from the engine until the test {@linkplain #release
 * releases} it: the engine's own code runs, in the order the test chooses. Reads and repairs pass
 * through.
 */
final class HeldReplies implements RedisLink {

    /** One script sent: what Redis answered, and the future the engine waits on. */
    record Sent(CompletableFuture<List<Object>> real, CompletableFuture<List<Object>> engine) {
    }

    private final RedisLink redis;
    private final List<Sent> sent = new CopyOnWriteArrayList<>();
    private volatile boolean holding;
    private final AtomicReference<@Nullable Runnable> onNextSend = new AtomicReference<>();

    HeldReplies(RedisLink redis) {
        this.redis = redis;
    }

    /** From now on, script replies wait for {@link #release}. */
    void hold() {
        holding = true;
    }

    /** Runs {@code action} on the thread that sends the next script, as it sends it (it may throw). */
    void onNextSend(Runnable action) {
        onNextSend.set(action);
    }

    /** Scripts sent while holding. */
    int sent() {
        return sent.size();
    }

    /** Hands the engine the {@code index}th held script's reply (once Redis has given it). */
    void release(int index) {
        Sent script = sent.get(index);
        CompletableFuture<?> unused = script.real().whenComplete((answer, failure) -> {
            if (failure != null) {
                script.engine().completeExceptionally(failure);
            } else {
                script.engine().complete(answer);
            }
        });
    }

    /** Waits until Redis itself has answered the {@code index}th held script (it ran there). */
    void awaitRedis(int index) {
        sent.get(index).real().exceptionally(failure -> null).join();
    }

    @Override
    public CompletableFuture<List<Object>> compareAndSwap(List<? extends CasKey> keys) {
        Runnable action = onNextSend.getAndSet(null);
        if (action != null) {
            action.run();
        }
        CompletableFuture<List<Object>> real = redis.compareAndSwap(keys);
        if (!holding) {
            return real;
        }
        CompletableFuture<List<Object>> engine = new CompletableFuture<>();
        sent.add(new Sent(real, engine));
        return engine;
    }

    @Override
    public CompletableFuture<byte[]> get(String key) {
        return redis.get(key);
    }

    @Override
    public CompletableFuture<List<Object>> getAll(List<String> keys) {
        return redis.getAll(keys);
    }

    @Override
    public CompletableFuture<Long> deleteUnreadable(String key, byte @Nullable [] unreadable) {
        return redis.deleteUnreadable(key, unreadable);
    }

    @Override
    public CompletableFuture<?> delete(String key) {
        return redis.delete(key);
    }

    /**
     * Waits, without a wall-clock bound, until {@code condition}: the test's own timeout is the
     * bound, and it interrupts the test's thread, which then fails here instead of spinning on.
     */
    // yield on purpose: what is awaited happens on the store's and Netty's threads, which a spinning test
    // thread would keep off a core of a 2-core machine; a park would add a timer's tick to every step
    @SuppressWarnings("ThreadPriorityCheck")
    static void awaitUntil(BooleanSupplier condition) {
        while (!condition.getAsBoolean()) {
            if (Thread.currentThread().isInterrupted()) {
                throw new AssertionError("interrupted (the test timed out) before the condition held");
            }
            Thread.onSpinWait();
            Thread.yield();
        }
    }
}
