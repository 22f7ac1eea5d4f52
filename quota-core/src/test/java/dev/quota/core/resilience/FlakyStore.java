package dev.quota.core.resilience;

import dev.quota.core.QuotaStoreException;
import dev.quota.core.store.ForwardingStore;
import dev.quota.core.store.InMemoryStore;
import java.time.Clock;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Fault injection for the breaker's state machine: a real in-JVM store that can be switched to
 * fail every call, and that counts the calls that reached it.
 */
public final class FlakyStore extends ForwardingStore {

    private final AtomicInteger calls = new AtomicInteger();
    private volatile boolean down;
    private volatile CountDownLatch gate = new CountDownLatch(0);

    public FlakyStore(Clock clock) {
        super(InMemoryStore.builder().clock(clock).build());
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
    protected void before(String operation) {
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
