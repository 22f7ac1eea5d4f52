package dev.quota.redis.internal.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;
import org.redisson.client.RedisException;
import org.redisson.client.WriteRedisConnectionException;
import org.redisson.client.protocol.RedisCommand;

/**
 * A read ({@code GET} of a key, {@code MGET} of a slot's keys) on the store's own connection to the
 * master ({@link RespConnection}), written by the connection's thread with the read itself as the
 * task; answered with a redirect or {@code TRYAGAIN}, or not taken by the connection, it goes
 * again through the executor (which follows the redirect, and sends it again while a migrating
 * slot answers {@code TRYAGAIN}), whose reply completes it. The engine's own timeout
 * completes it too, and then closes the connection. A read on the connection costs its bytes and
 * this object; through the executor it also cost a pooled connection taken and given back, retry
 * and timeout timers and their promises.
 */
final class ReadReply<T> extends CompletableFuture<T>
        implements BiConsumer<@Nullable T, @Nullable Throwable>, RespConnection.Reply, Runnable {

    private final RedissonLink link;
    private final RedisCommand<T> read;
    /** The keys read, the first one routing the command. */
    private final Object[] keys;
    private final RespConnection connection;
    private @Nullable ByteBuf command;
    private volatile boolean redirected;
    private volatile boolean unwritten;

    ReadReply(RedissonLink link, RedisCommand<T> read, Object[] keys, RespConnection connection) {
        this.link = link;
        this.read = read;
        this.keys = keys;
        this.connection = connection;
    }

    /** Writes {@code bytes} (the read's RESP bytes, one reference handed over) on the connection's thread. */
    void send(ByteBuf bytes) {
        command = bytes;
        EventLoop loop = connection.loop();
        if (loop == null) {
            bytes.release();
            unwritable(null);
            return;
        }
        if (loop.inEventLoop()) {
            run();
            return;
        }
        try {
            loop.execute(this);
        } catch (RejectedExecutionException e) {
            bytes.release();
            unwritable(e);
        }
    }

    @Override
    public void run() {
        ByteBuf bytes = command;
        command = null;
        if (bytes == null || !connection.write(this, bytes)) {
            unwritable(null);
        }
    }

    private void unwritable(@Nullable Throwable cause) {
        unwritten = true;
        accept(null, new WriteRedisConnectionException("cannot write " + read.getName() + " to " + connection, cause));
    }

    @Override
    @SuppressWarnings("unchecked")
    public void answered(@Nullable Object answer) {
        boolean expected = read == RedissonLink.GET ? answer == null || answer instanceof byte[] : answer instanceof List;
        if (expected) {
            accept((T) answer, null);
        } else {
            accept(null, new RedisException(read.getName() + " answered " + answer + " on " + connection));
        }
    }

    @Override
    public void failed(Throwable failure) {
        accept(null, failure);
    }

    /** The answer of the command on the connection or through the executor. */
    @Override
    public void accept(@Nullable T answer, @Nullable Throwable failure) {
        if (failure != null && !isDone() && !redirected && (unwritten || RedissonLink.redirected(failure)
                || RedissonLink.tryAgain(failure))) {
            redirected = true;
            // not kept: the answer comes back to this accept, which completes this future either way
            CompletableFuture<?> unused = link.readThroughExecutor(read, keys).whenComplete(this);
            return;
        }
        if (!redirected) {
            link.held().outcome(connection.node, failure == null ? null : RedissonLink.cause(failure));
        }
        if (failure == null) {
            complete(answer);
        } else {
            completeExceptionally(failure);
        }
    }

    /** Fails the read: Redis's answer, the executor's, or the engine's timeout, which closes the connection. */
    @Override
    public boolean completeExceptionally(Throwable failure) {
        if (!super.completeExceptionally(failure)) {
            return false;
        }
        if (!redirected && failure instanceof TimeoutException) {
            connection.close("no reply within the store's timeout");
        }
        return true;
    }
}
