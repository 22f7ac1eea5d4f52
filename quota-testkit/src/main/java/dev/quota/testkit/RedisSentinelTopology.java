package dev.quota.testkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A master, one replica and three sentinels (quorum 2), all real redis-server processes on loopback.
 * Sentinels declare the master down after 1 s without answers (failover timeout 5 s), so
 * {@link #failover()} usually completes in 2 to 5 seconds.
 */
public final class RedisSentinelTopology implements AutoCloseable {

    /** The name the sentinels monitor the master under: {@value}. */
    public static final String DEFAULT_MASTER_NAME = "quota-master";
    /** How long {@link #start()} waits for replication and sentinel discovery: 20 seconds. */
    public static final Duration START_TIMEOUT = Duration.ofSeconds(20);
    /**
     * How long {@link #failover()} waits for the promotion: 75 seconds. A sentinel whose timer ran
     * 2 seconds late (a machine stalled under load) enters TILT mode for 30 seconds and votes in no
     * failover meanwhile: the wait covers one TILT and the failover after it.
     */
    public static final Duration FAILOVER_TIMEOUT = Duration.ofSeconds(75);

    private static final int SENTINELS = 3;

    private final List<RedisServer> dataNodes;
    private final List<RedisServer> sentinels;

    private RedisSentinelTopology(List<RedisServer> dataNodes, List<RedisServer> sentinels) {
        this.dataNodes = List.copyOf(dataNodes);
        this.sentinels = List.copyOf(sentinels);
    }

    /**
     * Starts the five processes and waits until the replica is in sync and every sentinel sees the
     * master, the replica and the two other sentinels (at most {@link #START_TIMEOUT}).
     *
     * @throws IllegalStateException if a process fails to start or the topology does not settle in time
     */
    public static RedisSentinelTopology start() {
        List<RedisServer> started = new ArrayList<>();
        try {
            RedisServer master = RedisServer.start();
            started.add(master);
            RedisServer replica = RedisServer.start(
                    List.of("--replicaof", master.host(), Integer.toString(master.port())));
            started.add(replica);
            List<RedisServer> sentinels = new ArrayList<>();
            for (int i = 0; i < SENTINELS; i++) {
                RedisServer sentinel = RedisServer.start("sentinel.conf", sentinelConf(master), List.of("--sentinel"));
                started.add(sentinel);
                sentinels.add(sentinel);
            }
            RedisSentinelTopology topology = new RedisSentinelTopology(List.of(master, replica), sentinels);
            topology.awaitSettled(replica);
            return topology;
        } catch (RuntimeException e) {
            started.forEach(RedisServer::close);
            throw e;
        }
    }

    /** The monitored master's name, {@value #DEFAULT_MASTER_NAME}. */
    public String masterName() {
        return DEFAULT_MASTER_NAME;
    }

    /** The sentinels, as {@code redis://127.0.0.1:PORT}. */
    public List<String> sentinelAddresses() {
        return sentinels.stream().map(RedisServer::uri).collect(Collectors.toUnmodifiableList());
    }

    /** The sentinel processes, e.g. to kill one. */
    public List<RedisServer> sentinels() {
        return sentinels;
    }

    /**
     * The current master, as the sentinels report it ({@code SENTINEL get-master-addr-by-name}).
     *
     * @throws IllegalStateException if no sentinel answers
     */
    public RedisServer master() {
        RuntimeException lastError = null;
        for (RedisServer sentinel : sentinels) {
            try {
                int port = reportedMasterPort(sentinel);
                if (port > 0) {
                    return dataNodeOnPort(port);
                }
            } catch (RuntimeException e) {
                lastError = e;
            }
        }
        throw new IllegalStateException("no sentinel reported the master of " + DEFAULT_MASTER_NAME, lastError);
    }

    /** The data node that is not the current master; after {@link #failover()} that is the killed one. */
    public RedisServer replica() {
        RedisServer master = master();
        return dataNodes.get(0) == master ? dataNodes.get(1) : dataNodes.get(0);
    }

    /**
     * Kills the current master (SIGKILL) and waits until every running sentinel reports the other node as
     * master and that node says {@code role:master} (at most {@link #FAILOVER_TIMEOUT}). The killed node
     * stays down; {@link RedisServer#restart()} brings it back empty, and the sentinels turn it into a
     * replica of the new master about 11 s later (their INFO period), after which failover works again.
     *
     * @return the promoted master
     * @throws IllegalStateException if no promotion happens in time; the message holds the sentinel logs
     */
    public RedisServer failover() {
        RedisServer old = master();
        old.kill();
        return Await.result(FAILOVER_TIMEOUT, () -> {
            Integer agreed = null;
            for (RedisServer sentinel : sentinels) {
                if (!sentinel.isRunning()) {
                    continue;
                }
                int port = reportedMasterPort(sentinel);
                if (port <= 0 || port == old.port() || (agreed != null && agreed != port)) {
                    return null;
                }
                agreed = port;
            }
            if (agreed == null) {
                throw new IllegalStateException("no sentinel is running");
            }
            RedisServer promoted = dataNodeOnPort(agreed);
            try (RespClient client = RespClient.connect(promoted.host(), promoted.port())) {
                return "master".equals(RespClient.infoField(client.info("replication"), "role")) ? promoted : null;
            }
        }, () -> "the sentinels to promote a new master after killing " + old.uri() + "; sentinel logs:\n"
                + sentinelLogs());
    }

    /** Closes every process (sentinels first, so they do not react to the data nodes going away). */
    @Override
    public void close() {
        sentinels.forEach(RedisServer::close);
        dataNodes.forEach(RedisServer::close);
    }

    private void awaitSettled(RedisServer replica) {
        Await.result(START_TIMEOUT, () -> {
            try (RespClient client = RespClient.connect(replica.host(), replica.port())) {
                if (!"up".equals(RespClient.infoField(client.info("replication"), "master_link_status"))) {
                    return null;
                }
            }
            for (RedisServer sentinel : sentinels) {
                try (RespClient client = RespClient.connect(sentinel.host(), sentinel.port())) {
                    List<?> peers = (List<?>) client.command("SENTINEL", "sentinels", DEFAULT_MASTER_NAME);
                    List<?> replicas = (List<?>) client.command("SENTINEL", "replicas", DEFAULT_MASTER_NAME);
                    // a replica flagged "disconnected" or "s_down" would not be chosen for promotion
                    boolean replicaHealthy = replicas.size() == 1
                            && "slave".equals(fields((List<?>) replicas.get(0)).get("flags"));
                    if (peers.size() != SENTINELS - 1 || !replicaHealthy) {
                        return null;
                    }
                }
            }
            return Boolean.TRUE;
        }, () -> "the replica to sync and every sentinel to see its peers; replica log:\n"
                + replica.logTail() + "\nsentinel logs:\n" + sentinelLogs());
    }

    /** The master port a sentinel reports, or -1 if it does not know the master. */
    private static int reportedMasterPort(RedisServer sentinel) {
        try (RespClient client = RespClient.connect(sentinel.host(), sentinel.port())) {
            List<?> address = (List<?>) client.command("SENTINEL", "get-master-addr-by-name", DEFAULT_MASTER_NAME);
            return address == null ? -1 : Integer.parseInt((String) address.get(1));
        }
    }

    private RedisServer dataNodeOnPort(int port) {
        for (RedisServer node : dataNodes) {
            if (node.port() == port) {
                return node;
            }
        }
        throw new IllegalStateException("sentinels report a master on port " + port + ", which is not ours");
    }

    private String sentinelLogs() {
        return sentinels.stream().map(s -> "--- " + s.uri() + "\n" + s.logTail()).collect(Collectors.joining("\n"));
    }

    private static Map<String, String> fields(List<?> flat) {
        Map<String, String> map = new HashMap<>();
        for (int i = 0; i + 1 < flat.size(); i += 2) {
            map.put(String.valueOf(flat.get(i)), String.valueOf(flat.get(i + 1)));
        }
        return map;
    }

    private static String sentinelConf(RedisServer master) {
        String name = DEFAULT_MASTER_NAME;
        return "sentinel monitor " + name + " " + master.host() + " " + master.port() + " 2\n"
                + "sentinel down-after-milliseconds " + name + " 1000\n"
                + "sentinel failover-timeout " + name + " 5000\n"
                + "sentinel parallel-syncs " + name + " 1\n";
    }
}
