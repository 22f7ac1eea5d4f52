package dev.quota.redis.internal.transport;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.redisson.client.FailedNodeDetector;
import org.redisson.client.RedisClient;
import org.redisson.connection.ConnectionManager;
import org.redisson.connection.MasterSlaveEntry;

/**
 * The store's own connection to each Redis master ({@link RespConnection}), for its
 * compare-and-swap scripts and reads, which are written to it as RESP bytes ({@link ScriptReply},
 * {@link ReadReply}).
 *
 * <p>Why: a command sent through Redisson's executor takes a connection from the pool and gives
 * it back, and wraps the command in an executor with its own promises, a retry delay, two timers
 * and a node source, every command. Written to a connection of Redisson's pool directly it
 * still cost objects of Redisson's and Netty's connection layer (the write's promise and
 * listeners, the command queue's holder and node, the command's name encoded each time, reply
 * lengths decoded through strings). On a connection of its own the store writes one buffer a
 * command and parses the reply into what it reads (quota-bench scenario 6, allocation per
 * decision, shows the difference; the figures are in docs/BENCHMARKS.md, "Figures behind the code").
 *
 * <p>Which master: the one Redisson routes the key's slot to now ({@link #connection}), looked up
 * on every call, so after a Sentinel failover or a Cluster topology change the next script goes to
 * the new master; a connection to a node that is no longer a master is closed when a connection to
 * another master is made. While there is no ready connection for it (being made and hand-shaken,
 * closed and not made again yet) the call answers none and the script goes through the executor as
 * before. A connection that closed is made again by the next call for that master; one that never
 * became ready (refused, a wrong password) is tried again no sooner than a second later, the
 * executor carrying the calls meanwhile. A node the store cannot connect to the way Redisson does
 * ({@link RespConnection#supports}: TLS, say) gets no connection of its own: the executor carries
 * every call to it.
 *
 * <p>Uses Redisson's connection manager and master entries ({@code org.redisson.connection}),
 * public classes of Redisson 4.7.0 outside its {@code api} package: the version is pinned by the
 * build and tested by the store's Sentinel, Cluster, restart and failover tests.
 */
public final class HeldConnections {

    /** How long after a connection that never became ready another is tried. */
    private static final long RETRY_NANOS = 1_000_000_000L;

    private final ConnectionManager manager;
    private final RespCommands commands;
    private final ConcurrentHashMap<RedisClient, RespConnection> held = new ConcurrentHashMap<>();
    /** When a master whose connection never became ready may be tried again (System.nanoTime). */
    private final ConcurrentHashMap<RedisClient, Long> retryAt = new ConcurrentHashMap<>();
    private volatile boolean holds;

    /** With {@code holds} false it holds none: every command goes through Redisson's executor. */
    HeldConnections(ConnectionManager manager, RespCommands commands, boolean holds) {
        this.manager = manager;
        this.commands = commands;
        this.holds = holds;
    }

    /**
     * The connection to the master that owns {@code key}'s slot, ready for commands; null when
     * there is none now (the first call for a master starts making one).
     */
    public @Nullable RespConnection connection(String key) {
        if (!holds) {
            return null;
        }
        RedisClient master;
        try {
            MasterSlaveEntry entry = manager.getWriteEntry(manager.calcSlot(key));
            master = entry == null ? null : entry.getClient();
        } catch (RuntimeException e) {
            return null; // not connected yet: the executor reports why
        }
        if (master == null) {
            return null; // a slot no master serves now, or a master being replaced: the executor answers
        }
        RespConnection mine = held.get(master);
        if (mine != null) {
            if (mine.ready()) {
                return mine;
            }
            if (!mine.closedForGood()) {
                return null; // being made
            }
            if (!mine.wasReady()) {
                retryAt.put(master, System.nanoTime() + RETRY_NANOS);
            }
            held.remove(master, mine); // closed: made again below, or once a failed attempt's second passed
        }
        open(master);
        return null;
    }

    private void open(RedisClient master) {
        Long retry = retryAt.get(master);
        if (retry != null && System.nanoTime() - retry < 0) {
            return;
        }
        if (!RespConnection.supports(master.getConfig()) || master.isShutdown()) {
            return;
        }
        RespConnection[] made = new RespConnection[1];
        held.computeIfAbsent(master, node -> made[0] = RespConnection.open(node, commands, () -> closed(node)));
        if (made[0] == null) {
            return;
        }
        // a node that is no longer a master (failed over, a topology changed) is done with
        held.forEach((node, connection) -> {
            if (node != master && (node.isShutdown() || !isMaster(node))) {
                connection.close("no longer a master");
            }
        });
        if (!holds) {
            made[0].close("store closed");
        }
    }

    private boolean isMaster(RedisClient node) {
        MasterSlaveEntry entry = manager.getEntry(node);
        return entry != null && entry.getClient() == node;
    }

    /** A connection closed: the next call makes another, at once if it had been ready. */
    private void closed(RedisClient node) {
        RespConnection connection = held.get(node);
        if (connection == null || !connection.closedForGood()) {
            return; // closed as it was made: the next call finds it closed
        }
        if (connection.wasReady()) {
            retryAt.remove(node);
        } else {
            retryAt.put(node, System.nanoTime() + RETRY_NANOS);
        }
        held.remove(node, connection);
    }

    /**
     * Tells the failure detector of {@code node} what a command on it came to ({@code failure},
     * null: answered), as Redisson's executor does with its commands: a detector configured to
     * count failed commands marks the node failed and Redisson reconnects to it. The engine's own
     * timeout ({@link TimeoutException}) is not the node's answer.
     */
    void outcome(RedisClient node, @Nullable Throwable failure) {
        FailedNodeDetector detector = node.getConfig().getFailedNodeDetector();
        if (failure == null) {
            detector.onCommandSuccessful();
            return;
        }
        if (failure instanceof TimeoutException) {
            return;
        }
        detector.onCommandFailed(failure);
        MasterSlaveEntry entry = detector.isNodeFailed() ? manager.getEntry(node) : null;
        if (entry != null) {
            entry.shutdownAndReconnectAsync(node, failure);
        }
    }

    /** Closes every connection: the store closed. */
    void close() {
        holds = false;
        for (RespConnection connection : held.values()) {
            connection.close("store closed");
        }
        held.clear();
    }
}
