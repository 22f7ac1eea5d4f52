package dev.quota.bench.net;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.Iterator;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.HdrHistogram.Histogram;

/**
 * A TCP proxy on loopback that puts its target one simulated network hop away: every byte is held
 * for half the configured round trip on its way in and half on its way back, so a request and its
 * answer take {@code roundTrip} longer than they would directly. {@code roundTrip} 0.5 ms: a PING
 * that takes 40 µs on loopback takes about 540 µs through the proxy.
 *
 * <p>It keeps TCP's guarantees: the bytes of each direction arrive in order and intact, whatever
 * the size of the writes; an end of stream is passed on after the delay too. Each accepted
 * connection gets its own connection to the target, so a client's connection pool works as it
 * would against the server. Two threads serve every connection: one reads (NIO selector) and
 * stamps each chunk with its due time, one writes when it is due ({@link Sender}); both ask for a
 * raised scheduling priority, as a network's delay does not grow with the client's CPU load
 * ({@link ThreadPriority}). Nagle's algorithm is off on both sides, as Redis clients and servers
 * turn it off.
 *
 * <p>What it adds beyond the delay is the extra hop through this process: a wake-up of each
 * thread, a read and a write per chunk (tens of microseconds on a busy 2-core machine). {@link
 * #lateness()} reports how late chunks were written after their due time, {@link #cpuNanos()} the
 * CPU its threads used, so a bench can leave it out of the client's CPU. Memory is not bounded:
 * every byte read is held until written (fine for request/response traffic; a peer that stops
 * reading makes the backlog grow).
 */
public final class DelayProxy implements AutoCloseable {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final InetSocketAddress target;
    private final Duration roundTrip;
    private final long oneWayNanos;
    private final ServerSocketChannel server;
    private final Selector selector;
    private final Sender sender;
    private final Thread reader;
    private final Set<Link> links = ConcurrentHashMap.newKeySet();
    private volatile boolean running = true;
    private volatile boolean readerPrioritized;

    private DelayProxy(InetSocketAddress target, Duration roundTrip) throws IOException {
        this.target = target;
        this.roundTrip = roundTrip;
        this.oneWayNanos = roundTrip.toNanos() / 2;
        this.selector = Selector.open();
        this.server = ServerSocketChannel.open();
        server.bind(new InetSocketAddress("127.0.0.1", 0), 1024);
        server.configureBlocking(false);
        server.register(selector, SelectionKey.OP_ACCEPT);
        this.sender = new Sender("delay-proxy-send-" + port());
        this.reader = new Thread(this::readLoop, "delay-proxy-read-" + port());
        reader.setDaemon(true);
    }

    /**
     * Starts a proxy on a free loopback port that forwards to {@code host:port}, adding
     * {@code roundTrip} to every round trip (half each way).
     *
     * @throws IllegalArgumentException if {@code roundTrip} is negative
     * @throws UncheckedIOException     if no port can be bound
     */
    public static DelayProxy start(String host, int port, Duration roundTrip) {
        if (roundTrip.isNegative()) {
            throw new IllegalArgumentException("roundTrip must be >= 0 but was " + roundTrip);
        }
        try {
            DelayProxy proxy = new DelayProxy(new InetSocketAddress(host, port), roundTrip);
            proxy.sender.start();
            proxy.reader.start();
            return proxy;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the delay proxy", e);
        }
    }

    /** The loopback port clients connect to. */
    public int port() {
        return server.socket().getLocalPort();
    }

    /** {@code redis://127.0.0.1:<port>}: the proxy as a Redis URI. */
    public String uri() {
        return "redis://127.0.0.1:" + port();
    }

    /** The round trip it adds. */
    public Duration roundTrip() {
        return roundTrip;
    }

    /** Connections open through it now. */
    public int connections() {
        return links.size();
    }

    /** How late chunks were written after their due time (read time plus half the round trip). */
    public Histogram lateness() {
        return sender.lateness();
    }

    /** Whether both its threads run at a raised priority (nice {@value ThreadPriority#NICE}; see {@link ThreadPriority}). */
    public boolean prioritized() {
        return readerPrioritized && sender.prioritized();
    }

    /** The ids of its two threads (the reader and the sender). */
    public Set<Long> threadIds() {
        return Set.of(reader.getId(), sender.thread().getId());
    }

    /** CPU nanoseconds its two threads have used; -1 where the JVM cannot measure thread CPU. */
    public long cpuNanos() {
        long read = THREADS.getThreadCpuTime(reader.getId());
        long send = THREADS.getThreadCpuTime(sender.thread().getId());
        return read < 0 || send < 0 ? -1 : read + send;
    }

    private void readLoop() {
        readerPrioritized = ThreadPriority.raiseCurrentThread();
        ByteBuffer buffer = ByteBuffer.allocateDirect(64 * 1024);
        while (running) {
            try {
                selector.select();
            } catch (IOException e) {
                return;
            }
            for (Iterator<SelectionKey> it = selector.selectedKeys().iterator(); it.hasNext(); ) {
                SelectionKey key = it.next();
                it.remove();
                if (!key.isValid()) {
                    continue;
                }
                if (key.isAcceptable()) {
                    accept();
                } else if (key.isReadable()) {
                    read(key, (Link.Direction) key.attachment(), buffer);
                }
            }
        }
    }

    private void accept() {
        SocketChannel client;
        try {
            client = server.accept();
        } catch (IOException e) {
            return;
        }
        if (client == null) {
            return;
        }
        SocketChannel upstream = null;
        try {
            client.setOption(StandardSocketOptions.TCP_NODELAY, true);
            upstream = SocketChannel.open(target); // loopback: a blocking connect takes microseconds
            upstream.setOption(StandardSocketOptions.TCP_NODELAY, true);
            client.configureBlocking(false);
            upstream.configureBlocking(false);
            Link link = new Link(client, upstream, links::remove);
            links.add(link);
            client.register(selector, SelectionKey.OP_READ, link.up);
            upstream.register(selector, SelectionKey.OP_READ, link.down);
        } catch (IOException e) {
            closeQuietly(client);
            if (upstream != null) {
                closeQuietly(upstream);
            }
        }
    }

    /** Reads what the source has, each read a chunk due one way's delay from now. */
    private void read(SelectionKey key, Link.Direction from, ByteBuffer buffer) {
        try {
            while (true) {
                buffer.clear();
                int n = from.source.read(buffer);
                if (n < 0) {
                    key.cancel();
                    sender.submit(new Chunk(from, null, System.nanoTime() + oneWayNanos));
                    return;
                }
                if (n == 0) {
                    return;
                }
                byte[] bytes = new byte[n];
                buffer.flip();
                buffer.get(bytes);
                sender.submit(new Chunk(from, bytes, System.nanoTime() + oneWayNanos));
                if (n < buffer.capacity()) {
                    return;
                }
            }
        } catch (IOException e) {
            from.link.close();
        }
    }

    /** Stops both threads and closes every connection and the listening socket. */
    @Override
    public void close() {
        running = false;
        selector.wakeup();
        try {
            reader.join(2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        sender.stop();
        for (Link link : links) {
            link.close();
        }
        closeQuietly(server);
        try {
            selector.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    private static void closeQuietly(java.nio.channels.Channel channel) {
        try {
            channel.close();
        } catch (IOException e) {
            // closing anyway
        }
    }
}
