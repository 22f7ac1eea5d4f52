package dev.quota.redis;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RFuture;
import org.redisson.client.codec.ByteArrayCodec;
import org.redisson.client.protocol.RedisCommands;
import org.redisson.command.CommandAsyncExecutor;

/** {@link RedisLink} over Redisson's asynchronous command executor. */
final class RedissonLink implements RedisLink {

    private final CommandAsyncExecutor redis;

    RedissonLink(CommandAsyncExecutor redis) {
        this.redis = redis;
    }

    @Override
    public CompletableFuture<List<Object>> compareAndSwap(List<Object> keys, Object[] arguments) {
        RFuture<List<Object>> reply = redis.evalWriteAsync((String) keys.get(0), ByteArrayCodec.INSTANCE,
                RedisCommands.EVAL_LIST, CasScript.TEXT, keys, arguments);
        return reply.toCompletableFuture();
    }

    @Override
    public CompletableFuture<byte[]> get(String key) {
        RFuture<byte[]> reply = redis.readAsync(key, ByteArrayCodec.INSTANCE, RedisCommands.GET, key);
        return reply.toCompletableFuture();
    }

    @Override
    public CompletableFuture<Long> deleteUnreadable(String key, byte @Nullable [] unreadable) {
        Object[] args = unreadable == null ? new Object[0] : new Object[] {unreadable};
        RFuture<Long> reply = redis.evalWriteAsync(key, ByteArrayCodec.INSTANCE, RedisCommands.EVAL_LONG,
                BucketRepair.DELETE_IF_UNCHANGED, List.of(key), args);
        return reply.toCompletableFuture();
    }

    @Override
    public CompletableFuture<?> delete(String key) {
        return redis.writeAsync(key, ByteArrayCodec.INSTANCE, RedisCommands.DEL, key).toCompletableFuture();
    }
}
