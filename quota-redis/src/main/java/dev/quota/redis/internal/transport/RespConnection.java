package dev.quota.redis.internal.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.redisson.client.NettyHook;
import org.redisson.client.RedisClient;
import org.redisson.client.RedisClientConfig;
import org.redisson.client.RedisConnectionException;
import org.redisson.client.RedisException;
import org.redisson.config.Credentials;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store's own connection to one Redis master, for its compare-and-swap scripts and reads
 * ({@link HeldConnections}): a Netty channel on the Redisson client's event loops, which writes each
 * command as RESP bytes its caller encoded into one pooled buffer ({@link RespCommands}) and parses
 * each reply straight into what the caller reads ({@link RespReplies}), no promise, holder or
 * decoded string a command.
 *
 * <p>It hand-shakes as Redisson does for that node: {@code AUTH} with the credentials its
 * {@code CredentialsResolver} answers (a password in the node's URI first), {@code SELECT} of the
 * database when not 0, {@code CLIENT SETNAME} when the client has a name; it takes commands only
 * once every step answered {@code OK} ({@link #ready()}). Any other answer, or none, closes it.
 *
 * <p>Threads: everything but {@link #ready()} and {@link #close} runs on the channel's event loop.
 * The replies in flight are a FIFO ({@code inFlight}, the loop's alone): Redis answers a
 * connection's commands in the order written, and the loop writes them in the order it adds them.
 *
 * <p>Liveness: every {@code pingConnectionInterval} (Redisson's setting, 30 s by default) a tick
 * writes {@code PING} when nothing was written since the last one, its reply in order with the
 * scripts'; a tick that finds replies awaited and none came since the last tick closes the
 * connection (a dead or hung peer). A reply the engine gave up on (its own timeout)
 * closes it too ({@link #close}). Closing fails every reply in flight: a script written may have
 * run (the engine refuses its decisions, in doubt); the next call makes a new connection.
 */
public final class RespConnection extends ByteToMessageDecoder {

    private static final Logger LOG = LoggerFactory.getLogger(RespConnection.class);

    /** Where a command's reply goes: called on the connection's event loop, once. */
    interface Reply {
        /** Redis answered: a {@code byte[]} (null: none), a {@code List<Object>}, a {@code Long} or {@link RespReplies#SIMPLE}. */
        void answered(@Nullable Object answer);

        /** Redis answered an error, or the connection closed before it answered. */
        void failed(Throwable failure);
    }

    /**
     * The buffers a connection reads replies into and writes commands from: Netty's pooled
     * allocator, whose buffers keep their socket view from one read or write to the next; the
     * adaptive allocator Netty 4.2 defaults to makes a view (a {@code DirectByteBuffer}, 64 bytes)
     * every read and every write. Commands are encoded by the callers' threads into buffers of the
     * default allocator (a pooled buffer made on one thread and released on the connection's would
     * not go back to the maker's recycler, and cost a new buffer object every command), then copied
     * by the connection's thread into one of these, made and released on that thread.
     */
    private static final ByteBufAllocator READS = PooledByteBufAllocator.DEFAULT;

    private static final int CONNECTING = 0;
    private static final int READY = 1;
    private static final int CLOSED = 2;

    final RedisClient node;
    private final RespCommands commands;
    private final Runnable onClose;
    /**
     * Told when a close of the channel ends: one that failed is logged. What a close means for the
     * replies in flight happens in {@link #channelInactive} either way.
     */
    private final ChannelFutureListener closeFailure;
    private volatile int state = CONNECTING;
    private volatile boolean wasReady;
    private volatile @Nullable Channel channel;
    // the event loop's alone:
    private final ArrayDeque<Reply> inFlight = new ArrayDeque<>();
    private int handshakeLeft;
    private int repliesSinceTick;
    private int writesSinceTick;
    private boolean awaitedAtTick;
    private io.netty.util.concurrent.@Nullable ScheduledFuture<?> ticks;

    private RespConnection(RedisClient node, RespCommands commands, Runnable onClose) {
        this.node = node;
        this.commands = commands;
        this.onClose = onClose;
        this.closeFailure = done -> {
            if (!done.isSuccess()) {
                LOG.debug("closing the connection to {} failed: {}", node, String.valueOf(done.cause()));
            }
        };
    }

    /**
     * Whether the store can make its own connection to {@code node}: not over TLS, a Unix socket,
     * RESP3 or Valkey capabilities, which Redisson's own connections carry and this one does not.
     * Then the executor carries every call, as before. An application's {@code NettyHook} is
     * applied to this connection's bootstrap and channel as Redisson applies it to its own.
     */
    public static boolean supports(RedisClientConfig config) {
        return !config.getAddress().isSsl() && !config.getAddress().isUDS()
                && config.getProtocol() == org.redisson.config.Protocol.RESP2
                && (config.getCapabilities() == null || config.getCapabilities().isEmpty());
    }

    /** Starts connecting to {@code node}; {@code onClose} runs once it is closed, for whatever reason. */
    static RespConnection open(RedisClient node, RespCommands commands, Runnable onClose) {
        RespConnection connection = new RespConnection(node, commands, onClose);
        connection.connect();
        return connection;
    }

    private void connect() {
        // not kept: the callback reports its own failures (logged, then closed)
        CompletableFuture<?> unused = node.resolveAddr().whenComplete((address, failure) -> {
            if (address == null) {
                LOG.warn("cannot resolve {}: {}", node, failure == null ? "no address" : failure.toString());
                closed(); // not resolved: the executor reports why, and a later call tries again
            } else {
                connect(address);
            }
        });
    }

    private void connect(InetSocketAddress address) {
        RedisClientConfig config = node.getConfig();
        ChannelFuture connecting;
        try {
            NettyHook hook = config.getNettyHook();
            Bootstrap bootstrap = new Bootstrap().group(config.getGroup()).channel(config.getSocketChannelClass())
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, config.getConnectTimeout())
                    .option(ChannelOption.TCP_NODELAY, config.isTcpNoDelay())
                    .option(ChannelOption.SO_KEEPALIVE, config.isKeepAlive())
                    .option(ChannelOption.ALLOCATOR, READS)
                    .handler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ch.pipeline().addLast(RespConnection.this);
                            if (hook != null) {
                                hook.afterChannelInitialization(ch); // as Redisson has it, after its own handlers
                            }
                        }
                    });
            if (hook != null) {
                hook.afterBoostrapInitialization(bootstrap);
            }
            connecting = bootstrap.connect(address);
        } catch (RuntimeException e) {
            LOG.warn("cannot connect to {}: {}", node, e.toString());
            closed(); // a client shutting down: the executor carries on
            return;
        }
        channel = connecting.channel();
        if (state == CLOSED) {
            connecting.channel().close().addListener(closeFailure); // the store closed meanwhile
        }
        connecting.addListener(done -> {
            if (!done.isSuccess()) {
                LOG.warn("cannot connect to {}: {}", node, String.valueOf(done.cause()));
                closed();
            }
        });
    }

    /** Whether it takes commands: connected and hand-shaken, not closed. */
    public boolean ready() {
        return state == READY;
    }

    /** Whether it was ever ready: else it is not tried again at once. */
    boolean wasReady() {
        return wasReady;
    }

    /** Whether it is closed: it takes no commands any more. */
    public boolean closedForGood() {
        return state == CLOSED;
    }

    /** The event loop that writes this connection's commands; null before the channel exists. */
    @Nullable EventLoop loop() {
        Channel to = channel;
        return to == null ? null : to.eventLoop();
    }

    /**
     * Writes {@code command} (one reference handed over) and awaits its reply for {@code reply}; on
     * the event loop. False, the command released and never written, when the connection does not
     * take commands (closed, or not hand-shaken).
     */
    boolean write(Reply reply, ByteBuf command) {
        Channel to = channel;
        if (state != READY || to == null || !to.isActive()) {
            command.release();
            return false;
        }
        send(to, reply, command);
        return true;
    }

    private void send(Channel to, Reply reply, ByteBuf command) {
        ByteBuf bytes = pooled(to, command); // first: a copy that failed leaves no reply awaited for nothing sent
        inFlight.add(reply);
        writesSinceTick++;
        // no promise a command (what it answers is the channel's void promise, not kept): a write that
        // fails closes the channel (exceptionCaught), which fails every reply in flight
        ChannelFuture unused = to.writeAndFlush(bytes, to.voidPromise());
    }

    /**
     * {@code command} (its reference handed over) in a buffer of the connection's allocator
     * ({@link #READS}): copied, and released, when a caller's thread made it in another's.
     */
    private static ByteBuf pooled(Channel to, ByteBuf command) {
        ByteBufAllocator own = to.alloc();
        if (command.alloc() == own) {
            return command; // a hand-shake's or keepalive's command, made on this thread
        }
        try {
            int length = command.readableBytes();
            return own.directBuffer(length, length).writeBytes(command, command.readerIndex(), length);
        } finally {
            command.release();
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        super.channelActive(ctx);
        RedisClientConfig config = node.getConfig();
        // a hand-shake not answered within the connect timeout: closed, and tried again later
        // not kept: it needs no cancelling (past the hand-shake, it finds the state changed and does nothing)
        io.netty.util.concurrent.ScheduledFuture<?> unusedTimeout = ctx.channel().eventLoop().schedule(() -> {
            if (state == CONNECTING) {
                close("no hand-shake within " + config.getConnectTimeout() + " ms");
            }
        }, config.getConnectTimeout(), TimeUnit.MILLISECONDS);
        config.getCredentialsResolver().resolve((InetSocketAddress) ctx.channel().remoteAddress()).whenComplete((credentials, failure) ->
                ctx.channel().eventLoop().execute(() -> handshake(ctx.channel(), config, credentials, failure)));
    }

    private void handshake(Channel to, RedisClientConfig config, @Nullable Credentials credentials,
                           @Nullable Throwable failure) {
        if (failure != null) {
            LOG.warn("no credentials for {}: {}", node, failure.toString());
            to.close().addListener(closeFailure);
            return;
        }
        String password = config.getAddress().getPassword();
        String username = config.getAddress().getUsername();
        if (password == null && credentials != null) {
            password = credentials.getPassword();
            username = credentials.getUsername();
        }
        if (password == null) {
            password = config.getPassword();
            username = username != null ? username : config.getUsername();
        }
        Reply step = new HandshakeStep();
        if (password != null) {
            handshakeLeft++;
            send(to, step, username == null ? commands.of(to.alloc(), "AUTH", password)
                    : commands.of(to.alloc(), "AUTH", username, password));
        }
        if (config.getDatabase() != 0) {
            handshakeLeft++;
            send(to, step, commands.of(to.alloc(), "SELECT", Integer.toString(config.getDatabase())));
        }
        if (config.getClientName() != null) {
            handshakeLeft++;
            send(to, step, commands.of(to.alloc(), "CLIENT", "SETNAME", config.getClientName()));
        }
        if (handshakeLeft == 0) {
            becomeReady(to, config);
        }
    }

    /** A hand-shake command's reply: the connection is ready once every one answered. */
    private final class HandshakeStep implements Reply {
        @Override
        public void answered(@Nullable Object answer) {
            Channel to = channel;
            if (--handshakeLeft == 0 && to != null) {
                becomeReady(to, node.getConfig());
            }
        }

        @Override
        public void failed(Throwable failure) {
            LOG.warn("cannot hand-shake with {}: {}", node, failure.getMessage());
            Channel to = channel;
            if (to != null) {
                to.close().addListener(closeFailure);
            }
        }
    }

    private void becomeReady(Channel to, RedisClientConfig config) {
        if (state != CONNECTING || !to.isActive()) {
            to.close().addListener(closeFailure); // closed during the hand-shake
            return;
        }
        int interval = config.getPingConnectionInterval();
        if (interval > 0) {
            ticks = to.eventLoop().scheduleAtFixedRate(this::tick, interval, interval, TimeUnit.MILLISECONDS);
        }
        wasReady = true;
        state = READY;
    }

    /**
     * A {@code pingConnectionInterval} passed (the event loop): {@code PING} when nothing was written
     * since the last tick; closed when replies were awaited at the last tick and none came since.
     */
    void tick() {
        Channel to = channel;
        if (state != READY || to == null) {
            return;
        }
        if (awaitedAtTick && repliesSinceTick == 0 && !inFlight.isEmpty()) {
            close("no reply within " + node.getConfig().getPingConnectionInterval() + " ms");
            return;
        }
        if (writesSinceTick == 0) {
            send(to, PONG, commands.ping(to.alloc()));
        }
        awaitedAtTick = !inFlight.isEmpty();
        repliesSinceTick = 0;
        writesSinceTick = 0;
    }

    /** A keepalive's reply: nothing to do but count it, as every reply is. */
    private static final Reply PONG = new Reply() {
        @Override
        public void answered(@Nullable Object answer) {
        }

        @Override
        public void failed(Throwable failure) {
        }
    };

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        while (in.isReadable()) {
            int start = in.readerIndex();
            Object answer = RespReplies.parse(in);
            if (answer == RespReplies.INCOMPLETE) {
                in.readerIndex(start);
                return;
            }
            Reply reply = inFlight.poll();
            if (reply == null) {
                close("a reply to no command");
                in.skipBytes(in.readableBytes());
                return;
            }
            repliesSinceTick++;
            try {
                if (answer instanceof RespReplies.ErrorReply error) {
                    reply.failed(error.exception(ctx.channel()));
                } else {
                    reply.answered(answer);
                }
            } catch (RuntimeException e) {
                LOG.warn("a reply's callback failed", e);
            }
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        try {
            super.channelInactive(ctx); // what was read is answered first
        } finally {
            closed();
            if (ticks != null) {
                ticks.cancel(false);
            }
            Reply reply;
            RedisException closed = null;
            while ((reply = inFlight.poll()) != null) {
                if (closed == null) {
                    closed = new RedisConnectionException("connection to " + node.getAddr()
                            + " closed before Redis answered: a script may have run");
                }
                try {
                    reply.failed(closed);
                } catch (RuntimeException e) {
                    LOG.warn("a reply's callback failed", e);
                }
            }
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.debug("connection to {} failed", node, cause);
        ctx.close().addListener(closeFailure);
    }

    /** Closes it (any thread): the replies in flight fail; the next call makes another. */
    void close(String why) {
        Channel to = channel;
        if (state != CLOSED) {
            LOG.debug("closing the connection to {}: {}", node, why);
        }
        closed();
        if (to != null) {
            to.close().addListener(closeFailure);
        }
    }

    private void closed() {
        if (state != CLOSED) {
            state = CLOSED;
            onClose.run();
        }
    }

    /** How many replies it awaits (for tests: read on its event loop, waiting for it). */
    public int awaiting() throws InterruptedException, java.util.concurrent.ExecutionException {
        EventLoop loop = loop();
        return loop == null ? 0 : loop.submit(inFlight::size).get();
    }

    /** Runs a keepalive tick now (for tests: on its event loop, waiting for it). */
    public void tickNow() throws InterruptedException {
        EventLoop loop = loop();
        if (loop != null) {
            loop.submit(this::tick).sync();
        }
    }

    /** The connection's own address, as Redis's {@code CLIENT LIST} shows it ({@code 127.0.0.1:50712}). */
    public String localAddress() {
        Channel to = channel;
        InetSocketAddress local = to == null ? null : (InetSocketAddress) to.localAddress();
        return local == null ? "" : local.getAddress().getHostAddress() + ":" + local.getPort();
    }

    @Override
    public String toString() {
        return "connection to " + node.getAddr() + " (" + channel + ")";
    }
}
