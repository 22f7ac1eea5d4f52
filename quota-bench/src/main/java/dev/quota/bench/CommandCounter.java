package dev.quota.bench;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;
import org.redisson.client.NettyHook;
import org.redisson.client.protocol.CommandData;
import org.redisson.client.protocol.CommandsData;

/**
 * Counts the commands a Redisson client writes to Redis: round trips as the client pays them.
 * {@code INFO commandstats} on the server also counts the commands that run inside a Lua script,
 * so it cannot tell one EVALSHA from the GET and SET it runs; this can.
 *
 * <p>Connection housekeeping (PING, CLIENT, HELLO, SELECT, INFO, READONLY) is left out. A command
 * with a string argument containing the {@link #watch watched marker} is also counted apart, to
 * attribute commands to one customer's key.
 */
public final class CommandCounter implements NettyHook {

    private final LongAdder commands = new LongAdder();
    private final ConcurrentHashMap<String, LongAdder> byName = new ConcurrentHashMap<>();
    private final LongAdder watchedCommands = new LongAdder();
    private volatile @Nullable String watched;

    @Override
    public void afterBoostrapInitialization(Bootstrap bootstrap) {
        // nothing: counting happens per channel
    }

    @Override
    public void afterChannelInitialization(Channel channel) {
        // last in the pipeline: outbound writes reach it before Redisson's encoders
        channel.pipeline().addLast(new Handler());
    }

    /** Counts, from now on, commands whose string arguments contain {@code marker} (null: none). */
    public void watch(@Nullable String marker) {
        this.watched = marker;
    }

    /** Sets both counts to zero. */
    public void reset() {
        commands.reset();
        watchedCommands.reset();
        byName.clear();
    }

    /** Commands written since the last reset. */
    public long commands() {
        return commands.sum();
    }

    /** Commands written since the last reset, by command name (upper case). */
    public Map<String, Long> byName() {
        Map<String, Long> out = new TreeMap<>();
        byName.forEach((name, count) -> out.put(name, count.sum()));
        return out;
    }

    /** Commands naming the watched marker since the last reset. */
    public long watchedCommands() {
        return watchedCommands.sum();
    }

    private void count(CommandData<?, ?> command) {
        if (counted(command.getCommand().getName())) {
            watch(command);
        }
    }

    /** Counts a command under {@code name}, unless it is connection housekeeping; answers whether it counted. */
    private boolean counted(String name) {
        switch (name) {
            case "PING":
            case "CLIENT":
            case "HELLO":
            case "SELECT":
            case "INFO":
            case "READONLY":
                return false;
            default:
                break;
        }
        commands.increment();
        byName.computeIfAbsent(name, n -> new LongAdder()).increment();
        return true;
    }

    private void watch(CommandData<?, ?> command) {
        String marker = watched;
        if (marker != null) {
            for (Object param : command.getParams()) {
                if (param instanceof String && ((String) param).contains(marker)) {
                    watchedCommands.increment();
                    return;
                }
            }
        }
    }

    /**
     * A command written as its RESP bytes (the Redis store's own connection writes its scripts and
     * reads so): an array of bulk strings, the first the command's name.
     */
    private void count(ByteBuf command) {
        String name = RespArgs.name(command);
        if (name == null || !counted(name)) {
            return;
        }
        String marker = watched;
        if (marker != null) {
            String[] args = RespArgs.read(command, Integer.MAX_VALUE);
            for (int i = 1; i < args.length; i++) {
                if (args[i].contains(marker)) {
                    watchedCommands.increment();
                    return;
                }
            }
        }
    }

    @ChannelHandler.Sharable
    private final class Handler extends ChannelOutboundHandlerAdapter {
        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
            if (msg instanceof ByteBuf) {
                count((ByteBuf) msg);
            } else if (msg instanceof CommandData) {
                count((CommandData<?, ?>) msg);
            } else if (msg instanceof CommandsData) {
                List<CommandData<?, ?>> batch = ((CommandsData) msg).getCommands();
                for (CommandData<?, ?> command : batch) {
                    count(command);
                }
            }
            super.write(ctx, msg, promise);
        }
    }
}
