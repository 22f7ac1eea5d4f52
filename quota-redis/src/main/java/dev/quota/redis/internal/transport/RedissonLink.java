package dev.quota.redis.internal.transport;

import dev.quota.redis.internal.encoding.CasScript;
import dev.quota.redis.internal.encoding.CasKey;
import dev.quota.redis.internal.encoding.RepairScript;
import io.netty.buffer.ByteBufAllocator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.CompletionException;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RFuture;
import org.redisson.client.RedisNoScriptException;
import org.redisson.client.RedisRedirectException;
import org.redisson.client.RedisTryAgainException;
import org.redisson.client.codec.ByteArrayCodec;
import org.redisson.client.protocol.RedisCommand;
import org.redisson.client.protocol.RedisCommands;
import org.redisson.command.CommandAsyncExecutor;

/**
 * {@link RedisLink} over Redisson.
 *
 * <p>The compare-and-swap script goes as {@code EVALSHA}, written as RESP bytes to the
 * connection the store opens to the master Redisson routes the first key's slot to, one per master
 * ({@link HeldConnections}, {@link RespConnection}). Sent through Redisson's executor instead, as it
 * goes while no such connection is ready, a command costs promises, timers and routing
 * objects of its own (quota-bench scenario 6; docs/BENCHMARKS.md, "Figures behind the code"), with the parameters {@link CasScript#call} builds. What the
 * executor would do for the script is done here: where Redis does not know the script (a restarted
 * or new server, a replica promoted that never saw it, {@code SCRIPT FLUSH}) it answers
 * {@code NOSCRIPT} without running it, and the same call goes once more as {@code EVAL} with the
 * script's text, which runs it and leaves it in that server's script cache; where a Cluster node
 * answers that another node serves the slot ({@code MOVED}, {@code ASK}), it did not run it either,
 * and the call goes again through the executor, which follows the redirect; so it does when the
 * connection did not take the command (closed before it was written: Redis never saw it). A node
 * that refuses a call of several keys with {@code TRYAGAIN} (their slot is migrating, some keys
 * moved and some not) did not run it either: it goes again after {@value #TRY_AGAIN_MILLIS} ms,
 * until it runs or the engine's timeout ends it. Any
 * other failure is the call's, as through the executor with no retries (the builder sets none): a
 * script is never sent twice unless it certainly did not run ({@link ScriptReply}). The store's
 * connection has no timer of Redisson's: a reply that never comes is timed out by the engine's own
 * step, which completes the call and closes the connection. Reads of a key go on
 * that connection too ({@link ReadReply}), one key's ({@code GET}) and a slot's keys' ({@code MGET}).
 */
public final class RedissonLink implements RedisLink {

    static final RedisCommand<List<Object>> EVALSHA_LIST = new RedisCommand<>(RedisCommands.EVAL_LIST, "EVALSHA");
    /**
     * How long a command refused with {@code TRYAGAIN} waits before it goes again: about what a
     * resharding tool takes to {@code MIGRATE} the next keys of the slot.
     */
    static final long TRY_AGAIN_MILLIS = 5;
    /** {@code GET} as {@link RedisCommands#GET} sends and decodes it, typed for the bytes it answers. */
    static final RedisCommand<byte[]> GET = new RedisCommand<>("GET");

    private final CommandAsyncExecutor redis;
    private final HeldConnections held;
    private final RespCommands commands;
    /** The script's text, its commands named as the client's command mapper names them. */
    final String text;
    /** The SHA-1 of {@link #text}: what {@code EVALSHA} sends. */
    final String sha;

    /**
     * @param ownConnections whether scripts and reads go on the store's own connection per master
     *                       (see above); false sends every command through Redisson's executor
     */
    public RedissonLink(CommandAsyncExecutor redis, boolean ownConnections) {
        this.redis = redis;
        UnaryOperator<String> names = redis.getServiceManager().getCommandMapper()::map;
        this.text = CasScript.text(names);
        this.sha = CasScript.sha(text);
        this.commands = new RespCommands(names, sha);
        this.held = new HeldConnections(redis.getConnectionManager(), commands, ownConnections);
    }

    @Override
    public CompletableFuture<List<Object>> compareAndSwap(List<? extends CasKey> keys) {
        ScriptReply reply = new ScriptReply(this);
        reply.send(keys);
        return reply;
    }

    /** Closes the store's own connections. */
    public void close() {
        held.close();
    }

    /** The store's own connections, one per master, for scripts and reads. */
    public HeldConnections held() {
        return held;
    }

    /** The commands as RESP bytes, for those connections. */
    RespCommands commands() {
        return commands;
    }

    /** Sends {@code call} (as {@link CasScript#call} builds it) through Redisson's executor, routed by its first key. */
    RFuture<List<Object>> send(RedisCommand<List<Object>> command, Object[] call) {
        return redis.writeAsync((String) call[CasScript.FIRST_KEY], ByteArrayCodec.INSTANCE, command, call);
    }

    /** Whether Redis answered that it does not know the script: then it did not run. */
    static boolean unknownScript(Throwable failure) {
        Throwable cause = cause(failure);
        if (cause instanceof RedisNoScriptException) {
            return true;
        }
        String message = cause.getMessage();
        return message != null && message.startsWith("NOSCRIPT");
    }

    /**
     * Whether a Cluster node answered that another serves the key's slot ({@code MOVED}, {@code ASK}):
     * then the command did not run.
     */
    static boolean redirected(Throwable failure) {
        Throwable cause = cause(failure);
        if (cause instanceof RedisRedirectException) {
            return true;
        }
        String message = cause.getMessage();
        return message != null && (message.startsWith("MOVED ") || message.startsWith("ASK "));
    }

    /**
     * Whether a Cluster node refused a command of several keys because its slot is being migrated
     * and only some of the keys have moved yet ({@code TRYAGAIN}): the command did not run, and the
     * same command succeeds once the migration has moved the rest.
     */
    static boolean tryAgain(Throwable failure) {
        Throwable cause = cause(failure);
        if (cause instanceof RedisTryAgainException) {
            return true;
        }
        String message = cause.getMessage();
        return message != null && message.startsWith("TRYAGAIN");
    }

    /**
     * Runs {@code task} after {@link #TRY_AGAIN_MILLIS}, on the client's timer: a command refused with
     * {@code TRYAGAIN} goes again then, and again, until it runs or the engine's timeout ends the call.
     */
    void later(Runnable task) {
        redis.getServiceManager().newTimeout(timeout -> task.run(), TRY_AGAIN_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** A failure as Redisson raised it, out of the future's wrapping. */
    static Throwable cause(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }

    /** A key's bytes, read on the connection held for its master, or through the executor while none is. */
    @Override
    public CompletableFuture<byte[]> get(String key) {
        return read(GET, new Object[] {key});
    }

    /** The keys' bytes in one {@code MGET}, on the connection held for their master, or through the executor while none is. */
    @Override
    public CompletableFuture<List<Object>> getAll(List<String> keys) {
        return read(RedisCommands.MGET, keys.toArray());
    }

    private <T> CompletableFuture<T> read(RedisCommand<T> command, Object[] keys) {
        RespConnection to = held.connection((String) keys[0]);
        if (to == null) {
            return readThroughExecutor(command, keys);
        }
        ReadReply<T> reply = new ReadReply<>(this, command, keys, to);
        reply.send(command == GET ? commands.get(ByteBufAllocator.DEFAULT, (String) keys[0])
                : commands.mget(ByteBufAllocator.DEFAULT, keys));
        return reply;
    }

    /**
     * Sends the read {@code command} of {@code keys} through Redisson's executor, routed by the first
     * key; refused with {@code TRYAGAIN} (an {@code MGET} while its slot migrates), it goes again.
     */
    <T> CompletableFuture<T> readThroughExecutor(RedisCommand<T> command, Object[] keys) {
        CompletableFuture<T> reply = new CompletableFuture<>();
        readInto(reply, command, keys);
        return reply;
    }

    private <T> void readInto(CompletableFuture<T> reply, RedisCommand<T> command, Object[] keys) {
        RFuture<T> sent = redis.readAsync((String) keys[0], ByteArrayCodec.INSTANCE, command, keys);
        sent.whenComplete((answer, failure) -> {
            if (failure == null) {
                reply.complete(answer);
            } else if (!reply.isDone() && tryAgain(failure)) {
                later(() -> {
                    if (!reply.isDone()) {
                        readInto(reply, command, keys);
                    }
                });
            } else {
                reply.completeExceptionally(failure);
            }
        });
    }

    @Override
    public CompletableFuture<Long> deleteUnreadable(String key, byte @Nullable [] unreadable) {
        Object[] args = unreadable == null ? new Object[0] : new Object[] {unreadable};
        RFuture<Long> reply = redis.evalWriteAsync(key, ByteArrayCodec.INSTANCE, RedisCommands.EVAL_LONG,
                RepairScript.TEXT, List.of(key), args);
        return reply.toCompletableFuture();
    }

    @Override
    public CompletableFuture<?> delete(String key) {
        return redis.writeAsync(key, ByteArrayCodec.INSTANCE, RedisCommands.DEL, key).toCompletableFuture();
    }
}
