package dev.quota.core.resilience;

import dev.quota.core.Customer;
import dev.quota.core.QuotaDecision;
import dev.quota.core.QuotaService;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * Concurrent callers of {@link QuotaService#decide}, released together from one latch, each
 * recording every decision with the phase it started in. Callers pick their customer from the
 * current phase ({@code <phase>-<caller % customersPerPhase>}), so the decisions of one phase
 * never touch another phase's buckets.
 */
public final class DecisionLoad {

    /**
     * One decision: the phase it started in and the phase it ended in, its customer, what it decided,
     * how long it took, and who decided instead of the store (null: the store did).
     */
    public record Sample(String phase, String endedIn, String customer, QuotaDecision.Outcome outcome,
                         long latencyNanos, QuotaDecision.Fallback.@Nullable Kind fallback) {
    }

    private final QuotaService service;
    private final int callers;
    private final int customersPerPhase;
    private final long pauseNanos;
    private final List<List<Sample>> samples = new ArrayList<>();
    private final List<Throwable> errors = new CopyOnWriteArrayList<>();
    /** Per phase, the customers that have been rejected at least once: their bucket is spent. */
    private final java.util.Map<String, java.util.Set<String>> spent = new java.util.concurrent.ConcurrentHashMap<>();
    private final List<Thread> threads = new ArrayList<>();
    private final CountDownLatch go = new CountDownLatch(1);
    private volatile String phase;
    private volatile boolean stopped;

    public DecisionLoad(QuotaService service, int callers, int customersPerPhase, Duration pause, String firstPhase) {
        this.service = service;
        this.callers = callers;
        this.customersPerPhase = customersPerPhase;
        this.pauseNanos = pause.toNanos();
        this.phase = firstPhase;
    }

    public void start() {
        for (int i = 0; i < callers; i++) {
            List<Sample> own = new ArrayList<>();
            samples.add(own);
            int caller = i;
            Thread thread = new Thread(() -> call(caller, own), "caller-" + i);
            thread.setDaemon(true);
            threads.add(thread);
            thread.start();
        }
        go.countDown();
    }

    public void phase(String next) {
        this.phase = next;
    }

    /**
     * Stops the callers and waits for them.
     *
     * @return whether every caller finished within {@code timeout}
     */
    public boolean stop(Duration timeout) throws InterruptedException {
        stopped = true;
        long deadline = System.nanoTime() + timeout.toNanos();
        for (Thread thread : threads) {
            thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            if (thread.isAlive()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether every customer of {@code phase} has been rejected at least once: the phase has
     * spent its buckets, however slow this machine is today.
     */
    public boolean allSpent(String phase) {
        return spent.getOrDefault(phase, java.util.Set.of()).size() >= customersPerPhase;
    }

    /** Every decision, once stopped. */
    public List<Sample> samples() {
        List<Sample> all = new ArrayList<>();
        samples.forEach(all::addAll);
        return all;
    }

    /** Anything a decision threw. */
    public List<Throwable> errors() {
        return errors;
    }

    /** The latency at percentile {@code p} (0..100) of {@code samples}, in microseconds. */
    public static long percentileMicros(List<Sample> samples, double p) {
        if (samples.isEmpty()) {
            return 0;
        }
        List<Long> latencies = new ArrayList<>(samples.size());
        samples.forEach(s -> latencies.add(s.latencyNanos()));
        Collections.sort(latencies);
        int index = (int) Math.min(latencies.size() - 1, Math.ceil(p / 100 * latencies.size()) - 1);
        return latencies.get(Math.max(0, index)) / 1_000;
    }

    private void call(int caller, List<Sample> own) {
        try {
            go.await();
        } catch (InterruptedException e) {
            return;
        }
        while (!stopped) {
            String current = phase;
            Customer customer = Customer.of(current + "-" + (caller % customersPerPhase), "free");
            long start = System.nanoTime();
            try {
                QuotaDecision decision = service.decide(customer, null);
                own.add(new Sample(current, phase, customer.id(), decision.outcome(), System.nanoTime() - start,
                        decision.fallback() == null ? null : decision.fallback().kind()));
                if (decision.outcome() == QuotaDecision.Outcome.REJECTED) {
                    spent.computeIfAbsent(current, k -> java.util.concurrent.ConcurrentHashMap.newKeySet())
                            .add(customer.id());
                }
            } catch (RuntimeException e) {
                errors.add(e);
            }
            LockSupport.parkNanos(pauseNanos);
        }
    }
}
