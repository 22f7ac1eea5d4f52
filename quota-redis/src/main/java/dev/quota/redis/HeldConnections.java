package dev.quota.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.redisson.client.FailedNodeDetector;
import org.redisson.client.RedisClient;
import org.redisson.client.RedisConnection;
import org.redisson.client.protocol.RedisCommand;
import org.redisson.connection.ConnectionManager;
import org.redisson.connection.MasterSlaveEntry;

/**
 * One connection of the Redisson client's pool per Redis master, taken once and held by the store
 * for its compare-and-swap scripts and reads, which are written to it directly
 * ({@link ScriptReply}, {@link ReadReply}).
 *
 * <p>Why: a command sent through Redisson's executor takes a connection from the pool and gives
 * it back, and wraps the command in an executor with its own promises, a retry delay, two timers
 * and a node source: about 2 KB a command, most of what a decision allocated. A command written
 * to a held connection allocates itself and, in Netty, its write. Everything else Redisson does for its
 * connections still happens to a held one: it was initialised as every pooled connection is
 * (password, database, client name), Redisson pings it and reconnects it, and shuts it down with
 * its master.
 *
 * <p>Which master: the one Redisson routes the key's slot to now ({@link #connection}), looked up
 * on every call, so after a Sentinel failover or a Cluster topology change the next script goes to
 * the new master. While there is no usable connection for it (being taken from the pool, a
 * reconnect under way, a master just promoted) the call answers none and the script goes through
 * the executor as before. The connection is taken once per master, not per call; a connection
 * Redisson closed (its master shut down) is dropped and the next call takes another. A pool of one
 * connection is left to the executor: held, it would leave none for the store's other commands.
 *
 * <p>Uses Redisson's connection manager and master entries ({@code org.redisson.connection}),
 * public classes of Redisson 4.7.0 outside its {@code api} package: the version is pinned by the
 * build and tested by the store's Sentinel, Cluster, restart and failover tests.
 */
final class HeldConnections {

    private final ConnectionManager manager;
    /** What the pool is asked a connection for (it names the command in its logs). */
    private final RedisCommand<?> command;
    private final ConcurrentHashMap<RedisClient, Held> held = new ConcurrentHashMap<>();
    /**
     * Whether connections are held: not once closed, nor ever when a master's pool has one
     * connection (held, it would starve the executor).
     */
    private volatile boolean holds;

    HeldConnections(ConnectionManager manager, RedisCommand<?> command) {
        this.manager = manager;
        this.command = command;
        this.holds = manager.getServiceManager().getConfig().getMasterConnectionPoolSize() >= 2;
    }

    /** A master's held connection: none while it is being taken from the pool. */
    private static final class Held {
        final MasterSlaveEntry entry;
        @Nullable RedisConnection connection; // guarded by this

        Held(MasterSlaveEntry entry) {
            this.entry = entry;
        }

        synchronized boolean closed() {
            return connection != null && connection.isClosed();
        }
    }

    /**
     * The held connection to the master that owns {@code key}'s slot, open and connected; null when
     * there is none now (the first call for a master starts taking one from its pool).
     */
    @Nullable RedisConnection connection(String key) {
        if (!holds) {
            return null;
        }
        MasterSlaveEntry entry;
        RedisClient master;
        try {
            entry = manager.getWriteEntry(manager.calcSlot(key));
            master = entry == null ? null : entry.getClient();
        } catch (RuntimeException e) {
            return null; // not connected yet: the executor reports why
        }
        if (entry == null || master == null) {
            return null; // a slot no master serves now, or a master being replaced: the executor answers
        }
        Held mine = held.get(master);
        if (mine == null) {
            take(master, entry);
            return null;
        }
        RedisConnection connection;
        synchronized (mine) {
            connection = mine.connection;
        }
        if (connection == null) {
            return null;
        }
        if (connection.isClosed()) {
            held.remove(master, mine); // closed by Redisson, with its master: the next call takes another
            return null;
        }
        return connection.isActive() ? connection : null; // inactive: Redisson is reconnecting it
    }

    /** Takes a connection of {@code master}'s pool to hold, unless one is held or being taken. */
    private void take(RedisClient master, MasterSlaveEntry entry) {
        Held mine = new Held(entry);
        if (held.putIfAbsent(master, mine) != null) {
            return;
        }
        held.values().removeIf(Held::closed); // those of masters replaced since (Redisson closed them)
        CompletableFuture<RedisConnection> taken;
        try {
            taken = entry.connectionWriteOp(command);
        } catch (RuntimeException e) {
            held.remove(master, mine); // the executor meets the same trouble and reports it; a later call tries again
            return;
        }
        taken.whenComplete((connection, failure) -> {
            if (failure != null) {
                held.remove(master, mine); // a later call tries again
                return;
            }
            synchronized (mine) {
                if (holds) {
                    mine.connection = connection;
                    return;
                }
            }
            entry.releaseWrite(connection); // taken as the store closed
        });
    }

    /**
     * Tells the failure detector of {@code connection}'s node what a command on it came to
     * ({@code failure}, null: answered), as Redisson's executor does with its commands: a detector
     * configured to count failed commands marks the node failed and Redisson reconnects to it. The
     * engine's own timeout ({@link TimeoutException}) is not the node's answer.
     */
    void outcome(RedisConnection connection, @Nullable Throwable failure) {
        RedisClient node = connection.getRedisClient();
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

    /**
     * Gives every held connection back to its pool: for a Redisson client the application keeps
     * using after the store closed.
     */
    void close() {
        holds = false;
        for (Held mine : held.values()) {
            RedisConnection connection;
            synchronized (mine) {
                connection = mine.connection;
                mine.connection = null;
            }
            if (connection != null && !connection.isClosed()) {
                mine.entry.releaseWrite(connection);
            }
        }
        held.clear();
    }
}
