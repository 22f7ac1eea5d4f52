package dev.quota.core.resilience;

import dev.quota.core.QuotaStoreException;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.QuotaStore;
import dev.quota.core.store.InMemoryStore;
import java.time.Clock;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Fault injection for the breaker's state machine: a real in-JVM store that can be switched to
 * fail every call, and that counts the calls that reached it.
 */
public final class FlakyStore implements QuotaStore {

    private final InMemoryStore buckets;
    private final AtomicInteger calls = new AtomicInteger();
    private volatile boolean down;
    private volatile CountDownLatch gate = new CountDownLatch(0);

    public FlakyStore(Clock clock) {
        this.buckets = InMemoryStore.builder().clock(clock).build();
    }

    public void down(boolean down) {
        this.down = down;
    }

    /** Makes every call wait until {@link #release()}, to hold a trial call in flight. */
    public void hold() {
        gate = new CountDownLatch(1);
    }

    public void release() {
        gate.countDown();
    }

    public int calls() {
        return calls.get();
    }

    @Override
    public ConsumeResult tryConsume(BucketKey key, BucketSpec spec, long tokens) {
        enter();
        return buckets.tryConsume(key, spec, tokens);
    }

    @Override
    public void addTokens(BucketKey key, BucketSpec spec, long tokens) {
        enter();
        buckets.addTokens(key, spec, tokens);
    }

    @Override
    public ConsumeResult peek(BucketKey key, BucketSpec spec) {
        enter();
        return buckets.peek(key, spec);
    }

    @Override
    public void reset(BucketKey key) {
        enter();
        buckets.reset(key);
    }

    @Override
    public String describe() {
        return "flaky in-JVM store";
    }

    @Override
    public void close() {
        buckets.close();
    }

    private void enter() {
        calls.incrementAndGet();
        try {
            if (!gate.await(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("held call was never released");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        if (down) {
            throw new QuotaStoreException("injected store failure");
        }
    }
}
