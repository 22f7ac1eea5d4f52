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
import org.redisson.client.protocol.RedisCommands;

/**
 * A {@code GET} on a held connection ({@link HeldCommand}); answered with a redirect, or not
 * written, it goes again through the executor (which follows the redirect), whose reply completes it.
 */
final class ReadReply extends CompletableFuture<byte[]>
        implements BiConsumer<byte @Nullable [], @Nullable Throwable>, ChannelFutureListener {

    private final RedissonLink link;
    private final String key;
    private final RedisConnection connection;
    private final HeldCommand<byte[]> command = new HeldCommand<>(this);
    private volatile boolean redirected;
    private volatile boolean unwritten;

    ReadReply(RedissonLink link, String key, RedisConnection connection) {
        this.link = link;
        this.key = key;
        this.connection = connection;
    }

    void send() {
        connection.send(new CommandData<>(command, ByteArrayCodec.INSTANCE, RedisCommands.GET, new Object[] {key}))
                .addListener(this);
    }

    /** A {@code GET} the held connection could not write goes through the executor. */
    @Override
    public void operationComplete(ChannelFuture written) {
        if (!written.isSuccess()) {
            unwritten = true;
            command.completeExceptionally(new WriteRedisConnectionException(
                    "cannot write GET to " + written.channel(), written.cause()));
        }
    }

    /** The answer of the command on the held connection or through the executor. */
    @Override
    public void accept(byte @Nullable [] answer, @Nullable Throwable failure) {
        if (failure != null && !isDone() && !redirected
                && (unwritten || RedissonLink.cause(failure) instanceof RedisRedirectException)) {
            redirected = true;
            link.readThroughExecutor(key).whenComplete(this);
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
