package dev.quota.demo;

import dev.quota.testkit.Await;
import dev.quota.testkit.RawHttp;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Another customer on another address, asking for its account every 100 ms while an attack runs:
 * what the attack does to everyone else, as each request's status and time to answer.
 */
final class LegitimateCaller implements AutoCloseable {

    private final Thread thread;
    private final List<Long> millis = new CopyOnWriteArrayList<>();
    private final List<Integer> statuses = new CopyOnWriteArrayList<>();
    private volatile boolean stopped;

    private LegitimateCaller(String from, int port) {
        this.thread = new Thread(() -> {
            while (!stopped) {
                long start = System.nanoTime();
                int status;
                try {
                    status = RawHttp.get(from, port, "/api/v1/accounts/ACC-4001", "X-API-Key",
                            AttacksTest.ENTERPRISE).status();
                } catch (RuntimeException e) {
                    status = -1;
                }
                millis.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
                statuses.add(status);
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
            }
        }, "legitimate-caller");
        thread.setDaemon(true);
    }

    /** Starts asking instance {@code port} from address {@code from}, with the enterprise key. */
    static LegitimateCaller start(String from, int port) {
        LegitimateCaller caller = new LegitimateCaller(from, port);
        caller.thread.start();
        return caller;
    }

    /** The longest time to answer so far, in milliseconds. */
    long worstMillis() {
        return millis.stream().mapToLong(Long::longValue).max().orElse(0);
    }

    /**
     * Waits until {@code more} further requests have been answered (or given up on), so that an
     * attack that is over in a moment is still measured across a span of the caller's requests.
     */
    void awaitMore(int more) {
        int target = statuses.size() + more;
        Await.until(Duration.ofSeconds(30), () -> statuses.size() >= target,
                () -> more + " more requests of the legitimate caller (" + statuses.size() + " so far)");
    }

    /** Every status so far (-1: no answer). */
    List<Integer> statuses() {
        return List.copyOf(statuses);
    }

    /** Stops after the request in progress. */
    @Override
    public void close() {
        stopped = true;
        try {
            thread.join(30_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
