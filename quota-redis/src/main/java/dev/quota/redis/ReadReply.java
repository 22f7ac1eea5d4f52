package dev.quota.redis;

import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;
import org.redisson.client.RedisConnection;
import org.redisson.client.RedisRedirectException;
import org.redisson.client.WriteRedisConnectionException;
import org.redisson.client.codec.ByteArrayCodec;
import org.redisson.client.protocol.CommandData;
import org.redisson.client.protocol.RedisCommand;

/**
 * A read ({@code GET} of a key, {@code MGET} of a slot's keys) on a held connection
 * ({@link HeldCommand}); answered with a redirect, or not written, it goes again through the
 * executor (which follows the redirect), whose reply completes it. A read written to the held
 * connection costs the command, its promise and Netty's write; through the executor it also cost
 * a pooled connection taken and given back, retry and timeout timers and their promises.
 */
final class ReadReply<T> extends CompletableFuture<T>
        implements BiConsumer<@Nullable T, @Nullable Throwable>, ChannelFutureListener {

    private final RedissonLink link;
    private final RedisCommand<T> read;
    /** The keys read, the first one routing the command. */
    private final Object[] keys;
    private final RedisConnection connection;
    private final HeldCommand<T> command = new HeldCommand<>(this);
    private volatile boolean redirected;
    private volatile boolean unwritten;

    ReadReply(RedissonLink link, RedisCommand<T> read, Object[] keys, RedisConnection connection) {
        this.link = link;
        this.read = read;
        this.keys = keys;
        this.connection = connection;
    }

    void send() {
        connection.send(new CommandData<>(command, ByteArrayCodec.INSTANCE, read, keys)).addListener(this);
    }

    /** A read the held connection could not write goes through the executor. */
    @Override
    public void operationComplete(ChannelFuture written) {
        if (!written.isSuccess()) {
            unwritten = true;
            command.completeExceptionally(new WriteRedisConnectionException(
                    "cannot write " + read.getName() + " to " + written.channel(), written.cause()));
        }
    }

    /** The answer of the command on the held connection or through the executor. */
    @Override
    public void accept(@Nullable T answer, @Nullable Throwable failure) {
        if (failure != null && !isDone() && !redirected
                && (unwritten || RedissonLink.cause(failure) instanceof RedisRedirectException)) {
            redirected = true;
            link.readThroughExecutor(read, keys).whenComplete(this);
            return;
        }
        if (!redirected) {
            link.held().outcome(connection, failure == null ? null : RedissonLink.cause(failure));
        }
        if (failure == null) {
            complete(answer);
        } else {
            completeExceptionally(failure);
        }
    }
}
