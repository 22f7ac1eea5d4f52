package dev.quota.demo;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.Scheduler;
import org.jspecify.annotations.Nullable;

/**
 * One response under the {@link WriteBounds}: its writes go to Jetty one at a time, from a queue.
 *
 * <p>A write whose bytes fit in what is left of {@value #WRITE_BEHIND_BYTES} is copied and
 * completed at once (written behind): the caller, a worker, goes on. A larger one waits in the
 * queue, its caller blocked as on any Jetty write, until Jetty has taken it. The handler's
 * callback is held until the queue is empty, so Jetty completes the response only after its last
 * byte.
 *
 * <p>States: writing (the queue drains one write at a time, {@link #inFlight} while Jetty holds
 * one), then either drained (the handler's callback, once called, goes to Jetty) or failed
 * ({@link #failure} set: Jetty failed a write, a write outlived the timeout, or a bound was
 * reached; every queued caller and Jetty's callback are failed at once, whether or not the handler
 * has completed, and Jetty resets the stream or closes the connection). Every waiter is woken: a queued caller by its write's completion or
 * by the failure, and the failure comes at the latest with the write timeout of the write in flight.
 */
final class BoundedResponse extends Response.Wrapper {

    /** Bytes of a response written behind its worker: more than any refusal or small answer. */
    static final int WRITE_BEHIND_BYTES = 16 * 1024;

    /** A write: the bytes (copied when written behind) and the caller to complete, null when completed already. */
    private record Queued(@Nullable ByteBuffer bytes, boolean last, @Nullable Callback caller) {
        int size() {
            return bytes == null ? 0 : bytes.remaining();
        }
    }

    private final WriteBounds bounds;
    private final Object connection;
    private final Object address;
    private final Callback completion;
    private final Scheduler scheduler;
    /** HTTP/1.x: one response at a time on the connection, and a failed one closes it. */
    private final boolean http1;

    /** Guarded by this: writes not yet given to Jetty. */
    private final ArrayDeque<Queued> queue = new ArrayDeque<>();
    /** Guarded by this: whether Jetty holds a write of this response. */
    private boolean inFlight;
    /** Guarded by this: bytes written behind so far. */
    private long behind;
    /** Guarded by this: why the response failed, once it has. */
    private @Nullable Throwable failure;
    /** Guarded by this: whether the handler called its callback, and whether it has gone to Jetty. */
    private boolean handlerDone;
    private boolean completed;

    BoundedResponse(Request request, Response response, Callback completion, WriteBounds bounds, Object connection,
                    Object address) {
        super(request, response);
        this.bounds = bounds;
        this.connection = connection;
        this.address = address;
        this.completion = completion;
        this.scheduler = request.getComponents().getScheduler();
        this.http1 = request.getConnectionMetaData().getHttpVersion().getVersion() < 20;
    }

    @Override
    public void write(boolean last, @Nullable ByteBuffer bytes, Callback callback) {
        Throwable failed;
        boolean early = false;
        synchronized (this) {
            failed = failure;
            if (failed == null) {
                int size = bytes == null ? 0 : bytes.remaining();
                early = behind + size <= WRITE_BEHIND_BYTES;
                if (early) {
                    behind += size;
                    queue.add(new Queued(copy(bytes), last, null));
                } else {
                    queue.add(new Queued(bytes, last, callback));
                }
            }
        }
        if (failed != null) {
            callback.failed(failed);
            return;
        }
        pump();
        if (early) {
            Throwable failedNow;
            synchronized (this) {
                failedNow = failure;
            }
            if (failedNow == null) {
                callback.succeeded();
            } else {
                callback.failed(failedNow);
            }
        }
    }

    /** Committed once a write was taken, even before Jetty has it: the runtime must not write an error over it. */
    @Override
    public boolean isCommitted() {
        synchronized (this) {
            if (failure != null || inFlight || !queue.isEmpty()) {
                return true;
            }
        }
        return super.isCommitted();
    }

    /** The callback the handler completes instead of Jetty's: it reaches Jetty once every write has. */
    Callback handlerCallback() {
        return new Callback() {
            @Override
            public void succeeded() {
                Throwable failed;
                synchronized (BoundedResponse.this) {
                    handlerDone = true;
                    failed = failure;
                    if (completed || (failed == null && (inFlight || !queue.isEmpty()))) {
                        return; // the last write completes it
                    }
                    completed = true;
                }
                if (failed == null) {
                    completion.succeeded();
                } else {
                    completion.failed(abort(failed));
                }
            }

            @Override
            public void failed(Throwable x) {
                Throwable failed;
                synchronized (BoundedResponse.this) {
                    handlerDone = true;
                    if (completed) {
                        return;
                    }
                    completed = true;
                    failed = failure;
                }
                completion.failed(failed == null ? x : abort(failed));
            }

            @Override
            public InvocationType getInvocationType() {
                return completion.getInvocationType();
            }
        };
    }

    /** Gives the next queued write to Jetty, unless one is there already. */
    private void pump() {
        Queued next;
        synchronized (this) {
            if (inFlight || failure != null || queue.isEmpty()) {
                return;
            }
            next = queue.poll();
            inFlight = true;
        }
        // what an HTTP/1.x connection writes behind holds no worker, and the connection holds one
        // response at a time: counted against the connection only, so a neighbour behind the same
        // address as a client that does not read still gets its answer
        boolean perAddress = !(http1 && next.caller() == null);
        if (!bounds.acquire(connection, perAddress ? address : null)) {
            fail(new TimeoutException("too many writes wait for this client already"), next);
            return;
        }
        Flight flight = new Flight(next, perAddress ? address : null);
        flight.deadline = scheduler.schedule(flight::expire, bounds.timeout().toMillis(), TimeUnit.MILLISECONDS);
        super.write(next.last(), next.bytes(), flight);
    }

    private void written(Queued write) {
        boolean complete;
        synchronized (this) {
            inFlight = false;
            if (write.caller() == null) {
                behind -= write.size();
            }
            complete = handlerDone && !completed && queue.isEmpty() && failure == null;
            if (complete) {
                completed = true;
            }
        }
        if (write.caller() != null) {
            write.caller().succeeded();
        }
        if (complete) {
            completion.succeeded();
        } else {
            pump();
        }
    }

    /**
     * Fails the response: {@code taken}, a write polled from the queue (one that never reached
     * Jetty, or the one Jetty held), fails with the rest.
     */
    private void fail(Throwable why, @Nullable Queued taken) {
        List<Callback> callers = new ArrayList<>();
        boolean complete;
        Throwable failed;
        synchronized (this) {
            if (failure == null) {
                failure = why;
            }
            failed = failure;
            if (taken != null) {
                inFlight = false;
                if (taken.caller() != null) {
                    callers.add(taken.caller());
                }
            }
            for (Queued queued : queue) {
                if (queued.caller() != null) {
                    callers.add(queued.caller());
                }
            }
            queue.clear();
            // at once, not when the handler completes: a handler may never complete once a write of
            // a committed response failed (Jersey's Jetty container does not), and Jetty resets the
            // stream only when its callback fails; a later completion of the handler finds it done
            complete = !completed;
            completed = true;
        }
        for (Callback caller : callers) {
            caller.failed(failed);
        }
        if (http1) {
            // the client learns at once, as an HTTP/2 client from its reset stream; Jetty would
            // otherwise keep an HTTP/1.1 connection whose response it never began
            getRequest().getConnectionMetaData().getConnection().getEndPoint().close(failed);
        }
        if (complete) {
            completion.failed(abort(failed));
        }
    }

    /** A failure of the client's making, for Jetty: reset the stream (or close the connection), write no error page. */
    private static Throwable abort(Throwable why) {
        return why instanceof Request.Handler.AbortException ? why
                : new Request.Handler.AbortException("the client did not take the response", why);
    }

    private static @Nullable ByteBuffer copy(@Nullable ByteBuffer bytes) {
        if (bytes == null) {
            return null;
        }
        ByteBuffer copy = ByteBuffer.allocate(bytes.remaining());
        copy.put(bytes).flip();
        return copy;
    }

    /** One write Jetty holds: counted against the bounds once, given back once, failed at its deadline. */
    private final class Flight implements Callback {
        private final Queued write;
        /** The address the write is counted against, null when only its connection. */
        private final @Nullable Object counted;
        private final AtomicBoolean over = new AtomicBoolean();
        volatile Scheduler.@Nullable Task deadline;

        Flight(Queued write, @Nullable Object counted) {
            this.write = write;
            this.counted = counted;
        }

        private boolean end() {
            if (!over.compareAndSet(false, true)) {
                return false;
            }
            Scheduler.Task task = deadline;
            if (task != null) {
                task.cancel();
            }
            bounds.release(connection, counted);
            return true;
        }

        @Override
        public void succeeded() {
            if (end()) {
                written(write);
            }
        }

        @Override
        public void failed(Throwable x) {
            if (end()) {
                fail(x, write);
            }
        }

        void expire() {
            if (end()) {
                // its caller, if one waits, is failed now: Jetty's own end of this write comes
                // when the client reads, if ever, and finds the flight over
                fail(new TimeoutException("the client took no write for " + bounds.timeout().toMillis() + " ms"),
                        write);
            }
        }

        @Override
        public InvocationType getInvocationType() {
            return InvocationType.NON_BLOCKING;
        }
    }
}
