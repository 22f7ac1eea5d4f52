package dev.quota.bench.net;

import dev.quota.bench.LatencyHistogram;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * The proxy's writing thread: takes the chunks the reader queued, waits until each is due, and
 * writes it to its sink.
 *
 * <p>Every chunk is delayed by the same time and one thread queues them in the order it read
 * them, so the queue is ordered by due time and one FIFO serves every connection: bytes of one
 * direction keep their order, and no connection waits for another's timer. Waiting is a park until
 * shortly before the due time, then a spin for the rest: a park on Linux overshoots by the
 * thread's timer slack (about 65 µs here), so the margin is learned from the overshoots seen, and
 * the spin that covers it costs a few microseconds of CPU per wake-up, not a core.
 *
 * <p>A sink whose send buffer is full (a peer not reading) gets a backlog, flushed before anything
 * newer for it, so the stream stays in order without blocking the other connections.
 */
final class Sender {

    /** Bounds of the park margin: enough for a wake-up, never a long spin. */
    private static final long MIN_MARGIN = 10_000;
    private static final long MAX_MARGIN = 200_000;
    /** How often a backlogged sink is retried while nothing else is due. */
    private static final long BACKLOG_POLL = 20_000;

    private final ConcurrentLinkedQueue<Chunk> queue = new ConcurrentLinkedQueue<>();
    private final List<Link.Direction> backlogged = new ArrayList<>();
    private final LatencyHistogram lateness = new LatencyHistogram();
    private final Thread thread;
    private volatile boolean idle;
    private volatile boolean running = true;
    /** Moving average of how far a park overshoots what was asked, ns. */
    private long overshoot = 70_000;

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

    /** Queues a chunk; called by the reader thread only, in the order it read. */
    void submit(Chunk chunk) {
        queue.offer(chunk);
        if (idle) {
            LockSupport.unpark(thread);
        }
    }

    /** How late chunks were written after their due time, so far. */
    LatencyHistogram lateness() {
        LatencyHistogram copy = new LatencyHistogram();
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
            long margin = Math.max(MIN_MARGIN, Math.min(MAX_MARGIN, overshoot + MIN_MARGIN));
            if (wait > margin) {
                long asked = wait - margin;
                if (!backlogged.isEmpty()) {
                    flushBacklogs();
                    asked = Math.min(asked, BACKLOG_POLL);
                }
                long before = System.nanoTime();
                LockSupport.parkNanos(asked);
                long over = System.nanoTime() - before - asked;
                overshoot += (Math.max(0, Math.min(MAX_MARGIN, over)) - overshoot) / 8;
                continue;
            }
            long now;
            while ((now = System.nanoTime()) < head.due()) {
                Thread.onSpinWait();
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

    private void deliver(Chunk chunk, long now) {
        Link.Direction to = chunk.to();
        if (to.link.isClosed()) {
            return;
        }
        synchronized (lateness) {
            lateness.record(now - chunk.due());
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
