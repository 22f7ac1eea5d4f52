package dev.quota.redis;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RFuture;
import org.redisson.client.RedisNoScriptException;
import org.redisson.client.codec.ByteArrayCodec;
import org.redisson.client.protocol.RedisCommand;
import org.redisson.client.protocol.RedisCommands;
import org.redisson.command.CommandAsyncExecutor;

/**
 * {@link RedisLink} over Redisson's asynchronous command executor.
 *
 * <p>The compare-and-swap script goes as {@code EVALSHA} with the parameters {@link CasScript#call}
 * builds, as a plain command routed by its first key: Redisson's own script call
 * ({@code evalWriteAsync}) copies the keys and arguments for its {@code NOSCRIPT} fallback and
 * chains futures on every call, which allocated more than the rest of the command. Where Redis
 * does not know the script (a restarted or new server, a replica promoted that never saw it,
 * {@code SCRIPT FLUSH}) it answers {@code NOSCRIPT} without running it, and the same call goes once
 * more as {@code EVAL} with the script's text, which runs it and leaves it in that server's script
 * cache: one more round trip, once per server.
 */
final class RedissonLink implements RedisLink {

    private static final RedisCommand<List<Object>> EVALSHA_LIST = new RedisCommand<>(RedisCommands.EVAL_LIST, "EVALSHA");

    private final CommandAsyncExecutor redis;
    /** The script's text, its commands named as the client's command mapper names them. */
    private final String text;
    private final String sha;

    RedissonLink(CommandAsyncExecutor redis) {
        this.redis = redis;
        this.text = CasScript.text(redis.getServiceManager().getCommandMapper()::map);
        this.sha = CasScript.sha(text);
    }

    @Override
    public CompletableFuture<List<Object>> compareAndSwap(List<Cell> cells, byte[] @Nullable [] written, long[] ttls) {
        ScriptReply reply = new ScriptReply(CasScript.call(sha, cells, written, ttls, ByteBufAllocator.DEFAULT));
        reply.send();
        return reply;
    }

    private RFuture<List<Object>> send(RedisCommand<List<Object>> command, Object[] call) {
        return redis.writeAsync((String) call[CasScript.FIRST_KEY], ByteArrayCodec.INSTANCE, command, call);
    }

    /**
     * One script call's reply, and what comes back for it: the {@code EVALSHA}'s answer, or, when
     * Redis did not know the script, the {@code EVAL}'s. Redisson releases a command's buffers when
     * the command is done, so the argument is held once more while an {@code EVAL} may still need it.
     */
    private final class ScriptReply extends CompletableFuture<List<Object>>
            implements BiConsumer<List<Object>, Throwable> {

        private final Object[] call;
        /** Set once the call went again as {@code EVAL}; the Redisson client's thread's alone. */
        private boolean withText;

        ScriptReply(Object[] call) {
            this.call = call;
        }

        void send() {
            ByteBuf argument = CasScript.argument(call);
            argument.retain();
            try {
                RedissonLink.this.send(EVALSHA_LIST, call).whenComplete(this);
            } catch (RuntimeException | Error e) {
                argument.release();
                throw e;
            }
        }

        @Override
        public void accept(@Nullable List<Object> answer, @Nullable Throwable failure) {
            if (failure != null && !withText && !isDone() && unknownScript(failure)) {
                withText = true;
                RedissonLink.this.send(RedisCommands.EVAL_LIST, CasScript.withText(call, text)).whenComplete(this);
                return; // Redisson releases the argument when the EVAL is done
            }
            if (!withText) {
                CasScript.argument(call).release();
            }
            if (failure != null) {
                completeExceptionally(failure);
            } else {
                complete(answer);
            }
        }
    }

    /** Whether Redis answered that it does not know the script: then it did not run. */
    static boolean unknownScript(Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        if (cause instanceof RedisNoScriptException) {
            return true;
        }
        String message = cause.getMessage();
        return message != null && message.startsWith("NOSCRIPT");
    }

    @Override
    public CompletableFuture<byte[]> get(String key) {
        RFuture<byte[]> reply = redis.readAsync(key, ByteArrayCodec.INSTANCE, RedisCommands.GET, key);
        return reply.toCompletableFuture();
    }

    @Override
    public CompletableFuture<List<Object>> getAll(List<String> keys) {
        RFuture<List<Object>> reply = redis.readAsync(keys.get(0), ByteArrayCodec.INSTANCE, RedisCommands.MGET,
                keys.toArray());
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
