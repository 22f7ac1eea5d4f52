package dev.quota.bench.net;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * One proxied connection: the client's socket, the socket to the target, and a {@link Direction}
 * each way. Closed once both directions have delivered their end of stream, or at once when
 * either socket fails.
 */
final class Link {

    /** Client to target. */
    final Direction up;
    /** Target to client. */
    final Direction down;

    private final SocketChannel client;
    private final SocketChannel target;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicInteger ended = new AtomicInteger();
    private final Consumer<Link> onClose;

    Link(SocketChannel client, SocketChannel target, Consumer<Link> onClose) {
        this.client = client;
        this.target = target;
        this.onClose = onClose;
        this.up = new Direction(this, client, target);
        this.down = new Direction(this, target, client);
    }

    boolean isClosed() {
        return closed.get();
    }

    /** Closes both sockets; bytes still held for either direction are dropped. Idempotent. */
    void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        closeQuietly(client);
        closeQuietly(target);
        onClose.accept(this);
    }

    /** One direction has delivered its end of stream; the second one closes the link. */
    void ended() {
        if (ended.incrementAndGet() == 2) {
            close();
        }
    }

    private static void closeQuietly(SocketChannel channel) {
        try {
            channel.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    /**
     * Bytes read from {@code source} are written to {@code sink} once their delay is over. The
     * backlog holds what the sink could not take yet (its send buffer was full), in order; it is
     * touched by the sender thread only.
     */
    static final class Direction {

        /** A backlog entry that stands for the end of stream. */
        static final ByteBuffer END = ByteBuffer.allocate(0);

        final Link link;
        final SocketChannel source;
        final SocketChannel sink;
        final ArrayDeque<ByteBuffer> backlog = new ArrayDeque<>();

        Direction(Link link, SocketChannel source, SocketChannel sink) {
            this.link = link;
            this.source = source;
            this.sink = sink;
        }
    }
}
