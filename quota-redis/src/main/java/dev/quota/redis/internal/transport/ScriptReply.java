package dev.quota.redis.internal.transport;

import dev.quota.redis.internal.encoding.CasScript;
import dev.quota.redis.internal.encoding.CasKey;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.EventLoop;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;
import org.redisson.client.RedisException;
import org.redisson.client.WriteRedisConnectionException;
import org.redisson.client.protocol.RedisCommand;
import org.redisson.client.protocol.RedisCommands;

/**
 * One script call's reply: the answer of the command on the store's own connection to the master
 * ({@link RespConnection}), or of the executor's; unless the script certainly did not run (Redis
 * answered {@code NOSCRIPT} or a redirect, or the connection could not take it), and then the call
 * goes again through the executor: as {@code EVALSHA}, or as {@code EVAL} with the text when Redis
 * did not know the script; after a few milliseconds when a node refused it with {@code TRYAGAIN}
 * (its keys' slot migrating, some keys moved and some not), as often as it is refused. The engine's own timeout completes it too, and then closes the
 * connection, whose later replies could not be trusted to be in step.
 *
 * <p>On a connection, the command is written as RESP bytes into one pooled buffer on the caller's
 * thread, from the keys ({@link RespCommands#script}); the call holds one reference of it, released
 * when the call completes, whoever completes it first, and the write one, released by Netty once
 * written (or by the connection, when it does not take it). A call that goes through the executor
 * after all reads its parameters back from that buffer ({@link RespCommands#scriptCall}): the keys
 * are made over for other calls once the engine has settled this one. Through the executor from
 * the start, the call's parameters are built as {@link CasScript#call} has them, the argument's
 * buffer one reference of the call's, and one of each command sent with it, released by the
 * executor.
 *
 * <p>A command for a connection is written by that connection's own thread, the call itself being
 * the task handed to it: the order of the connection's commands, which its replies are matched by,
 * is the order its thread writes them in.
 */
public final class ScriptReply extends CompletableFuture<List<Object>>
        implements BiConsumer<@Nullable List<Object>, @Nullable Throwable>, RespConnection.Reply, Runnable {

    /** How the call went last: on the store's connection, or through the executor by SHA-1 or with the text. */
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
    /** Told when the call completes ({@link #whenDone}); set once, after it was sent. */
    private volatile @Nullable ReplyListener listener;
    /** Whether {@link #listener} was told: once, by whichever of completion and {@link #whenDone} comes second. */
    @SuppressWarnings("UnusedVariable") // set through TOLD
    private volatile boolean told;
    /** The executor's parameters, once it carries the call. */
    private volatile Object @Nullable [] call;
    /** The command's RESP bytes, when written to a connection. */
    private @Nullable ByteBuf command;
    private volatile int stage;
    private @Nullable RespConnection connection;
    /** Set when the connection did not take the command: then Redis never saw it. */
    private volatile boolean unwritten;

    ScriptReply(RedissonLink link) {
        this.link = link;
    }

    /** Sends the call on {@code keys} (read now, never after). */
    void send(List<? extends CasKey> keys) {
        RespConnection to = link.held().connection(keys.get(0).key);
        EventLoop loop = to == null ? null : to.loop();
        if (to == null || loop == null) {
            Object[] parameters = CasScript.call(link.sha, keys, ByteBufAllocator.DEFAULT);
            call = parameters;
            stage = SHA;
            again(RedissonLink.EVALSHA_LIST, parameters);
            return;
        }
        connection = to;
        ByteBuf bytes = link.commands().script(ByteBufAllocator.DEFAULT, keys);
        command = bytes;
        bytes.retain(); // the write's
        if (loop.inEventLoop()) {
            run();
            return;
        }
        try {
            // written by the connection's own thread: from another, Netty would wrap the write in a
            // task object of its own; this call is the task
            loop.execute(this);
        } catch (RejectedExecutionException e) {
            bytes.release(); // the write's: never written
            unwritable(e); // the connection's thread is shutting down
        }
    }

    /** Writes the command to the connection: on the connection's thread. */
    @Override
    public void run() {
        RespConnection to = Objects.requireNonNull(connection, "sent on a connection");
        if (!to.write(this, Objects.requireNonNull(command, "sent on a connection"))) {
            unwritable(null);
        }
    }

    /** The connection did not take the command: Redis never saw it, and it goes through the executor. */
    private void unwritable(@Nullable Throwable cause) {
        unwritten = true;
        accept(null, new WriteRedisConnectionException("cannot write the script to " + connection, cause));
    }

    /** Sends the call through the executor, with a reference of the argument's that it releases. */
    private void again(RedisCommand<List<Object>> through, Object[] parameters) {
        CasScript.argument(parameters).retain();
        link.send(through, parameters).whenComplete(this);
    }

    @Override
    @SuppressWarnings("unchecked")
    public void answered(@Nullable Object answer) {
        if (answer == null || answer instanceof List) {
            accept((List<Object>) answer, null);
        } else {
            accept(null, new RedisException("the script answered " + answer + " on " + connection));
        }
    }

    @Override
    public void failed(Throwable failure) {
        accept(null, failure);
    }

    /** The answer of the command on the connection or through the executor. */
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
                again(RedisCommands.EVAL_LIST, CasScript.withText(parameters(), link.text));
                return true;
            }
            if (RedissonLink.tryAgain(failure)) {
                // its keys' slot is migrating, some moved and some not: it did not run, and runs once
                // the rest have moved; through the executor, which follows where they went
                boolean text = was == TEXT;
                stage = text ? TEXT : SHA;
                link.later(() -> {
                    if (isDone()) {
                        return;
                    }
                    try {
                        again(text ? RedisCommands.EVAL_LIST : RedissonLink.EVALSHA_LIST,
                                text ? CasScript.withText(parameters(), link.text) : parameters());
                    } catch (RuntimeException e) {
                        completeExceptionally(failure); // not sent again (completed meanwhile, a client shutting down)
                    }
                });
                return true;
            }
            if (was == HELD && (unwritten || RedissonLink.redirected(failure))) {
                stage = SHA; // the executor follows a redirect
                again(RedissonLink.EVALSHA_LIST, parameters());
                return true;
            }
        } catch (RuntimeException e) {
            return false; // not sent again (a client shutting down): the call fails with Redis's answer
        }
        return false;
    }

    /** The executor's parameters: read back from the command's bytes when it was written to a connection. */
    private Object[] parameters() {
        Object[] parameters = call;
        if (parameters == null) {
            parameters = link.commands().scriptCall(Objects.requireNonNull(command, "sent on a connection"));
            call = parameters;
        }
        return parameters;
    }

    private void finished(@Nullable Throwable failure) {
        ByteBuf bytes = command;
        Object[] parameters = call;
        if (bytes != null) {
            bytes.release(); // the call's (the executor's parameters, if any, are slices of it)
        } else if (parameters != null) {
            CasScript.argument(parameters).release(); // the call's
        }
        RespConnection to = connection;
        if (stage == HELD && to != null) {
            Throwable cause = failure == null ? null : RedissonLink.cause(failure);
            link.held().outcome(to.node, cause);
            if (cause instanceof TimeoutException) {
                to.close("no reply within the store's timeout");
            }
        }
        tell();
    }
    /**
     * Tells {@code sent} once the call completes, at once if it has: what {@code whenComplete(sent)}
     * does, without the callback's object and the future {@code whenComplete} answers. Either this
     * or the completion comes second and sees the other (both fields volatile), and one of them tells.
     */
    public void whenDone(ReplyListener sent) {
        listener = sent;
        if (isDone()) {
            tell();
        }
    }

    private void tell() {
        ReplyListener to = listener;
        if (to != null && TOLD.compareAndSet(this, false, true)) {
            to.replied();
        }
    }
}
