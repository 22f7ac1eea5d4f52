package dev.quota.redis;

import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.EventLoop;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;
import org.redisson.client.RedisConnection;
import org.redisson.client.RedisRedirectException;
import org.redisson.client.WriteRedisConnectionException;
import org.redisson.client.codec.ByteArrayCodec;
import org.redisson.client.protocol.CommandData;
import org.redisson.client.protocol.RedisCommand;
import org.redisson.client.protocol.RedisCommands;

/**
 * One script call's reply: the answer of the command on a held connection ({@link HeldCommand}), or
 * of the executor's; unless the script certainly did not run (Redis answered {@code NOSCRIPT} or a
 * redirect, or the held connection could not write it), and then the call goes again through the
 * executor: as {@code EVALSHA}, or as {@code EVAL} with the text when Redis did not know the
 * script. The engine's own timeout completes it too.
 *
 * <p>The argument's buffer has one reference of the call's, released when the call completes,
 * whoever completes it first, and one of each command sent with it, released once that command is
 * done with it: a write on a held connection once written (the encoder has copied it, or never
 * will), a command through the executor by the executor.
 *
 * <p>A command for a held connection is written by that connection's own thread, the call itself
 * being the task handed to it: the order of the connection's commands, which its replies are
 * matched by, is the order its thread writes them in, as for any write of Netty's from another thread.
 */
final class ScriptReply extends CompletableFuture<List<Object>>
        implements BiConsumer<@Nullable List<Object>, @Nullable Throwable>, ChannelFutureListener, Runnable {

    /** How the call went last: on a held connection, or through the executor by SHA-1 or with the text. */
    private static final int HELD = 0;
    private static final int SHA = 1;
    private static final int TEXT = 2;

    private static final VarHandle TOLD;

    static {
        try {
            TOLD = MethodHandles.lookup().findVarHandle(ScriptReply.class, "told", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final RedissonLink link;
    /** The flight told when the call completes ({@link #whenDone}); set once, after it was sent. */
    private volatile @Nullable Flight flight;
    /** Whether {@link #flight} was told: once, by whichever of completion and {@link #whenDone} comes second. */
    @SuppressWarnings("UnusedVariable") // set through TOLD
    private volatile boolean told;
    private final Object[] call;
    private volatile int stage;
    private @Nullable RedisConnection connection;
    private @Nullable HeldCommand<List<Object>> command;
    /** Set when the held connection could not write the command: then Redis never saw it whole. */
    private volatile boolean unwritten;

    ScriptReply(RedissonLink link, Object[] call) {
        this.link = link;
        this.call = call;
    }

    void send() {
        RedisConnection to = link.held().connection((String) call[CasScript.FIRST_KEY]);
        if (to == null) {
            stage = SHA;
            again(RedissonLink.EVALSHA_LIST, call);
            return;
        }
        connection = to;
        command = new HeldCommand<>(this);
        CasScript.argument(call).retain(); // the write's
        EventLoop loop = to.getChannel().eventLoop();
        if (loop.inEventLoop()) {
            run();
            return;
        }
        try {
            // written by the connection's own thread: from another, Netty would wrap the write in a
            // task object of its own (about 50 bytes a script); this call is the task
            loop.execute(this);
        } catch (RejectedExecutionException e) {
            unwritable(e); // the connection's thread is shutting down
        }
    }

    /** Writes the command to the held connection: on the connection's thread. */
    @Override
    public void run() {
        RedisConnection to = Objects.requireNonNull(connection, "sent on a held connection");
        HeldCommand<List<Object>> sent = Objects.requireNonNull(command, "sent on a held connection");
        ChannelFuture written;
        try {
            written = to.send(new CommandData<>(sent, ByteArrayCodec.INSTANCE, RedissonLink.EVALSHA_LIST, call));
        } catch (RuntimeException e) {
            unwritable(e);
            return;
        }
        written.addListener(this);
    }

    /** The held connection could not take the command: Redis never saw it, and it goes through the executor. */
    private void unwritable(Throwable cause) {
        CasScript.argument(call).release(); // the write's
        unwritten = true;
        Objects.requireNonNull(command, "sent on a held connection").completeExceptionally(
                new WriteRedisConnectionException("cannot write the script to " + connection, cause));
    }

    /** Sends the call through the executor, with a reference of the argument's that it releases. */
    private void again(RedisCommand<List<Object>> through, Object[] parameters) {
        CasScript.argument(call).retain();
        link.send(through, parameters).whenComplete(this);
    }

    /**
     * The write on a held connection is done: its reference is given up. A command not written
     * whole (the connection closed under it) never ran, and goes through the executor.
     */
    @Override
    public void operationComplete(ChannelFuture written) {
        CasScript.argument(call).release();
        HeldCommand<List<Object>> sent = command;
        if (!written.isSuccess() && sent != null) {
            unwritten = true;
            sent.completeExceptionally(new WriteRedisConnectionException(
                    "cannot write the script to " + written.channel(), written.cause()));
        }
    }

    /** The answer of the command on the held connection or through the executor. */
    @Override
    public void accept(@Nullable List<Object> answer, @Nullable Throwable failure) {
        if (failure == null) {
            complete(answer);
        } else if (isDone() || !goesAgain(failure)) {
            completeExceptionally(failure);
        }
    }

    @Override
    public boolean complete(@Nullable List<Object> answer) {
        if (!super.complete(answer)) {
            return false;
        }
        finished(null);
        return true;
    }

    /** Fails the call with {@code failure}: Redis's, the executor's, or the engine's timeout. */
    @Override
    public boolean completeExceptionally(Throwable failure) {
        if (!super.completeExceptionally(failure)) {
            return false;
        }
        finished(failure);
        return true;
    }

    /** Whether the call goes again through the executor, the script certainly not having run. */
    private boolean goesAgain(Throwable failure) {
        int was = stage;
        try {
            if (was != TEXT && RedissonLink.unknownScript(failure)) {
                stage = TEXT;
                again(RedisCommands.EVAL_LIST, CasScript.withText(call, link.text));
                return true;
            }
            if (was == HELD && (unwritten || RedissonLink.cause(failure) instanceof RedisRedirectException)) {
                stage = SHA; // the executor follows a redirect, and takes a connection that writes
                again(RedissonLink.EVALSHA_LIST, call);
                return true;
            }
        } catch (RuntimeException e) {
            return false; // not sent again (a client shutting down): the call fails with Redis's answer
        }
        return false;
    }

    private void finished(@Nullable Throwable failure) {
        CasScript.argument(call).release(); // the call's
        RedisConnection to = connection;
        if (stage == HELD && to != null) {
            link.held().outcome(to, failure == null ? null : RedissonLink.cause(failure));
        }
        tell();
    }

    /**
     * Tells {@code sent} once the call completes, at once if it has: what {@code whenComplete(sent)}
     * does, without the callback's object and the future {@code whenComplete} answers. Either this
     * or the completion comes second and sees the other (both fields volatile), and one of them tells.
     */
    void whenDone(Flight sent) {
        flight = sent;
        if (isDone()) {
            tell();
        }
    }

    private void tell() {
        Flight to = flight;
        if (to != null && TOLD.compareAndSet(this, false, true)) {
            to.replied();
        }
    }
}
