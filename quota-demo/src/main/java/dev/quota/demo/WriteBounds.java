package dev.quota.demo;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.jspecify.annotations.Nullable;

/**
 * How long a response may wait for its client, and how many waiting writes one client may hold:
 * the bounds Jetty 12 has no setting for. Jetty's idle timeouts count any progress as activity, so
 * a client that opens its HTTP/2 flow-control window by one byte every few seconds (or reads its
 * socket as slowly) keeps a blocked write alive for as long as it likes; and Jetty 12 keeps
 * {@code HttpConfiguration.setMinResponseDataRate} as a setting but does not enforce it.
 *
 * <ul>
 *   <li>Each write the client does not take within the write timeout fails with a
 *       {@link java.util.concurrent.TimeoutException}; Jetty then resets the HTTP/2 stream, or closes
 *       the HTTP/1.1 connection, and the worker, if one was waiting, is free at once.</li>
 *   <li>At most {@link #maxPerConnection} writes wait at once on one connection and
 *       {@link #maxPerAddress} on all the connections of one client address; a write past either
 *       fails at once: its HTTP/2 stream is reset, its HTTP/1.1 connection closed. A write to a
 *       client that reads keeps up waits microseconds, so a healthy client never has more than
 *       one or two. What an HTTP/1.1 connection writes behind (below) counts against its
 *       connection only: it holds no worker, the connection carries one response at a time, and
 *       so a caller behind the same address (a NAT) as a client that does not read is still
 *       answered.</li>
 *   <li>The first {@value BoundedResponse#WRITE_BEHIND_BYTES} bytes of a response are copied and
 *       written behind: the worker goes on while they wait for the client, so a small answer
 *       (a 429 or 503 problem, an account) never holds a worker on a client that does not read.</li>
 * </ul>
 *
 * <p>Invariant: {@link #waiting} holds, per connection and per address, the number of writes issued
 * to Jetty and not yet completed, failed or timed out; each is counted once and given back once
 * ({@link BoundedResponse}).
 */
final class WriteBounds extends Handler.Wrapper {

    /** The write timeout when {@value #WRITE_TIMEOUT_PROPERTY} is not set: 10 s, the idle timeout. */
    static final Duration DEFAULT_WRITE_TIMEOUT = Duration.ofMillis(ApiServer.IDLE_TIMEOUT_MILLIS);
    /** The system property that sets the write timeout, in milliseconds. */
    static final String WRITE_TIMEOUT_PROPERTY = "quota.demo.write-timeout-ms";
    /** Writes that may wait for the client at once on one connection (HTTP/2 streams of one connection). */
    static final int MAX_WAITING_PER_CONNECTION = 8;
    /** Writes that may wait for the client at once on all the connections of one address: 16 of 64 workers. */
    static final int MAX_WAITING_PER_ADDRESS = 16;

    private final Duration writeTimeout;
    private final int maxPerConnection;
    private final int maxPerAddress;
    /** Guarded by itself: writes waiting per connection and per address; a key at zero is removed. */
    private final Map<Object, Integer> waiting = new HashMap<>();

    WriteBounds(Handler handler, Duration writeTimeout, int maxPerConnection, int maxPerAddress) {
        super(handler);
        if (writeTimeout.isNegative() || writeTimeout.isZero()) {
            throw new IllegalArgumentException("the write timeout must be > 0 but was " + writeTimeout);
        }
        this.writeTimeout = writeTimeout;
        this.maxPerConnection = maxPerConnection;
        this.maxPerAddress = maxPerAddress;
    }

    /**
     * The write timeout: {@value #WRITE_TIMEOUT_PROPERTY} when set (milliseconds, at least 1),
     * else {@link #DEFAULT_WRITE_TIMEOUT}.
     *
     * @throws IllegalArgumentException if the property is set to something else
     */
    static Duration writeTimeout() {
        String value = System.getProperty(WRITE_TIMEOUT_PROPERTY);
        if (value == null || value.isBlank()) {
            return DEFAULT_WRITE_TIMEOUT;
        }
        try {
            long millis = Long.parseLong(value.trim());
            if (millis >= 1) {
                return Duration.ofMillis(millis);
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(WRITE_TIMEOUT_PROPERTY + " must be a number of milliseconds >= 1 but was \""
                + value + "\"");
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        Handler next = getHandler();
        if (next == null) {
            return false;
        }
        Object connection = request.getConnectionMetaData().getConnection();
        Object address = address(request.getConnectionMetaData().getRemoteSocketAddress());
        BoundedResponse bounded = new BoundedResponse(request, response, callback, this, connection, address);
        return next.handle(request, bounded, bounded.handlerCallback());
    }

    Duration timeout() {
        return writeTimeout;
    }

    /**
     * Counts one more waiting write for {@code connection} and {@code address} (null: the
     * connection only); false, counting nothing, past a bound.
     */
    boolean acquire(Object connection, @Nullable Object address) {
        synchronized (waiting) {
            int onConnection = waiting.getOrDefault(connection, 0);
            int onAddress = address == null ? 0 : waiting.getOrDefault(address, 0);
            if (onConnection >= maxPerConnection || (address != null && onAddress >= maxPerAddress)) {
                return false;
            }
            waiting.put(connection, onConnection + 1);
            if (address != null) {
                waiting.put(address, onAddress + 1);
            }
            return true;
        }
    }

    /** Gives back one write {@link #acquire} counted, with the same arguments. */
    void release(Object connection, @Nullable Object address) {
        synchronized (waiting) {
            waiting.computeIfPresent(connection, (k, n) -> n <= 1 ? null : n - 1);
            if (address != null) {
                waiting.computeIfPresent(address, (k, n) -> n <= 1 ? null : n - 1);
            }
        }
    }

    /** Writes waiting now on {@code key} (a connection or an address), for tests. */
    int waiting(Object key) {
        synchronized (waiting) {
            return waiting.getOrDefault(key, 0);
        }
    }

    /** The client's IP address (the port dropped), or the socket address itself when it is not IP. */
    static Object address(SocketAddress remote) {
        if (remote instanceof InetSocketAddress inet) {
            InetAddress ip = inet.getAddress();
            return ip != null ? ip : inet.getHostString();
        }
        return String.valueOf(remote);
    }
}
