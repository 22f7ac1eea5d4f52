package dev.quota.bench.net;

import dev.quota.bench.Latencies;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * The proxy's writing thread: takes the chunks the reader queued, waits until each is due, and
 * writes it to its sink.
 *
 * <p>Every chunk is delayed by the same time and one thread queues them in the order it read
 * them, so the queue is ordered by due time and one FIFO serves every connection: bytes of one
 * direction keep their order, and no connection waits for another's timer. Waiting is a park until
 * shortly before the due time, then a spin for the rest: a park on Linux overshoots by the
 * thread's timer slack (50 µs by default, about 65 µs with the wake-up here), so the margin is the
 * overshoot a park usually has, learned as a low quantile of those seen; the spin yields until the
 * last few microseconds, so on a busy machine the measured processes run first. A park the scheduler
 * delays further (a busy machine) makes that chunk late; it does not make every later wait a long
 * spin, which on a loaded 2-core machine would take the CPU the measured processes need.
 *
 * <p>A sink whose send buffer is full (a peer not reading) gets a backlog, flushed before anything
 * newer for it, so the stream stays in order without blocking the other connections.
 */
final class Sender {

    /** Added to the usual overshoot: the spin that absorbs its jitter. */
    private static final long SPIN = 5_000;
    /** The most the usual overshoot is taken to be: never a long spin. */
    private static final long MAX_OVERSHOOT = 100_000;
    /** How often a backlogged sink is retried while nothing else is due. */
    private static final long BACKLOG_POLL = 20_000;

    private final ConcurrentLinkedQueue<Chunk> queue = new ConcurrentLinkedQueue<>();
    private final List<Link.Direction> backlogged = new ArrayList<>();
    private final Histogram lateness = Latencies.histogram();
    private final Thread thread;
    private volatile boolean idle;
    private volatile boolean running = true;
    private volatile boolean prioritized;
    /**
     * How far a park usually overshoots what was asked, ns: a low quantile of the overshoots seen,
     * following smaller ones quickly and larger ones slowly.
     */
    private long overshoot = 60_000;

    Sender(String name) {
        this.thread = new Thread(this::run, name);
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    Thread thread() {
        return thread;
    }

    /** Whether the thread runs at a raised priority ({@link ThreadPriority}). */
    boolean prioritized() {
        return prioritized;
    }

    /** Queues a chunk; called by the reader thread only, in the order it read. */
    void submit(Chunk chunk) {
        queue.offer(chunk);
        if (idle) {
            LockSupport.unpark(thread);
        }
    }

    /** How late chunks were written after their due time, so far. */
    Histogram lateness() {
        Histogram copy = Latencies.histogram();
        synchronized (lateness) {
            copy.add(lateness);
        }
        return copy;
    }

    void stop() {
        running = false;
        LockSupport.unpark(thread);
        try {
            thread.join(2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void run() {
        prioritized = ThreadPriority.raiseCurrentThread();
        while (running) {
            Chunk head = queue.peek();
            if (head == null) {
                if (!backlogged.isEmpty()) {
                    flushBacklogs();
                    LockSupport.parkNanos(BACKLOG_POLL);
                    continue;
                }
                idle = true;
                // the reader unparks after queueing when it sees idle: no chunk can be missed
                if (queue.isEmpty() && running) {
                    LockSupport.park(this);
                }
                idle = false;
                continue;
            }
            long wait = head.due() - System.nanoTime();
            long margin = overshoot + SPIN;
            if (wait > margin) {
                long asked = wait - margin;
                if (!backlogged.isEmpty()) {
                    flushBacklogs();
                    asked = Math.min(asked, BACKLOG_POLL);
                }
                long before = System.nanoTime();
                LockSupport.parkNanos(asked);
                learn(System.nanoTime() - before - asked);
                continue;
            }
            long now;
            while ((now = System.nanoTime()) < head.due()) {
                // yielding lets the measured threads run first on a busy machine; the last
                // microseconds are a plain spin, so a yield that returns late cannot make the chunk late
                if (head.due() - now > SPIN) {
                    Thread.yield();
                } else {
                    Thread.onSpinWait();
                }
            }
            Chunk next;
            while ((next = queue.peek()) != null && next.due() <= now) {
                queue.poll();
                deliver(next, now);
            }
            if (!backlogged.isEmpty()) {
                flushBacklogs();
            }
        }
    }

    /** Moves the usual overshoot a quarter of the way down to a smaller one, 1/64 up to a larger one. */
    private void learn(long over) {
        long sample = Math.max(0, Math.min(MAX_OVERSHOOT, over));
        overshoot += sample < overshoot ? (sample - overshoot) / 4 : (sample - overshoot) / 64;
    }

    private void deliver(Chunk chunk, long now) {
        Link.Direction to = chunk.to();
        if (to.link.isClosed()) {
            return;
        }
        synchronized (lateness) {
            lateness.recordValue(Math.max(0, now - chunk.due()));
        }
        byte[] bytes = chunk.bytes();
        ByteBuffer buffer = bytes == null ? Link.Direction.END : ByteBuffer.wrap(bytes);
        if (!to.backlog.isEmpty()) {
            to.backlog.add(buffer);
            return;
        }
        to.backlog.add(buffer);
        if (!flush(to)) {
            backlogged.add(to);
        }
    }

    private void flushBacklogs() {
        for (Iterator<Link.Direction> it = backlogged.iterator(); it.hasNext(); ) {
            Link.Direction to = it.next();
            if (to.link.isClosed() || flush(to)) {
                it.remove();
            }
        }
    }

    /** Writes as much of the backlog as the sink takes; true when it is empty (or the link closed). */
    private static boolean flush(Link.Direction to) {
        try {
            while (!to.backlog.isEmpty()) {
                ByteBuffer buffer = to.backlog.peek();
                if (buffer == Link.Direction.END) {
                    to.backlog.poll();
                    to.sink.shutdownOutput();
                    to.link.ended();
                    continue;
                }
                to.sink.write(buffer);
                if (buffer.hasRemaining()) {
                    return false;
                }
                to.backlog.poll();
            }
            return true;
        } catch (IOException e) {
            to.backlog.clear();
            to.link.close();
            return true;
        }
    }
}
