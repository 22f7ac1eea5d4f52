package dev.quota.testkit;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A Redis Cluster of three masters without replicas, real redis-server processes on loopback. Slots
 * are split as {@code redis-cli --cluster create} would: 0-5460, 5461-10922 and 10923-16383, in the
 * order of {@link #masters()}.
 */
public final class RedisClusterTopology implements AutoCloseable {

    /** Number of hash slots in a Redis Cluster: {@value}. */
    public static final int SLOTS = 16_384;
    /** How long {@link #start()} waits for {@code cluster_state:ok} on every node: 20 seconds. */
    public static final Duration START_TIMEOUT = Duration.ofSeconds(20);

    private static final int[][] SLOT_RANGES = {{0, 5460}, {5461, 10922}, {10923, 16383}};
    /**
     * Redis's default node timeout, 15 s: no replica takes over here, so a shorter one buys nothing,
     * and with 2 s a node starved of CPU on a busy machine was marked failing and the whole cluster
     * answered CLUSTERDOWN mid-test.
     */
    private static final List<String> NODE_ARGS = List.of("--cluster-enabled", "yes",
            "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "15000");

    private final List<RedisServer> masters;

    private RedisClusterTopology(List<RedisServer> masters) {
        this.masters = List.copyOf(masters);
    }

    /**
     * Starts three cluster-enabled nodes, gives each its slot range, introduces them with
     * {@code CLUSTER MEET}, and waits until every node reports {@code cluster_state:ok}, 3 known nodes,
     * 3 masters and all 16384 slots served (at most {@link #START_TIMEOUT}; Redis itself holds a fresh
     * master in state "fail" for its first 2 seconds).
     *
     * @throws IllegalStateException if a node fails to start or the cluster does not form in time
     */
    public static RedisClusterTopology start() {
        List<RedisServer> started = new ArrayList<>();
        try {
            for (int i = 0; i < SLOT_RANGES.length; i++) {
                started.add(RedisServer.start(NODE_ARGS));
            }
            for (int i = 0; i < started.size(); i++) {
                addSlots(started.get(i), SLOT_RANGES[i][0], SLOT_RANGES[i][1]);
            }
            RedisServer first = started.get(0);
            try (RespClient client = RespClient.connect(first.host(), first.port())) {
                for (RedisServer other : started.subList(1, started.size())) {
                    client.command("CLUSTER", "MEET", other.host(), Integer.toString(other.port()));
                }
            }
            RedisClusterTopology topology = new RedisClusterTopology(started);
            topology.awaitFormed();
            return topology;
        } catch (RuntimeException e) {
            started.forEach(RedisServer::close);
            throw e;
        }
    }

    /** The nodes, as {@code redis://127.0.0.1:PORT}, in the order of {@link #masters()}. */
    public List<String> nodeAddresses() {
        return masters.stream().map(RedisServer::uri).collect(Collectors.toUnmodifiableList());
    }

    /** The three masters; the first serves slots 0-5460, the second 5461-10922, the third 10923-16383. */
    public List<RedisServer> masters() {
        return masters;
    }

    /**
     * The master serving {@code slot}, e.g. {@code masterForSlot(slot("foo"))}, slot 12182, is the third.
     *
     * @throws IllegalArgumentException if slot is not in 0..16383
     */
    public RedisServer masterForSlot(int slot) {
        for (int i = 0; i < SLOT_RANGES.length; i++) {
            if (slot >= SLOT_RANGES[i][0] && slot <= SLOT_RANGES[i][1]) {
                return masters.get(i);
            }
        }
        throw new IllegalArgumentException("slot must be in 0..16383 but was " + slot);
    }

    /**
     * The hash slot of a key, exactly as Redis computes it: CRC16 (XMODEM) of the key's UTF-8 bytes mod
     * 16384, where only the part between the first '{' and the next '}' counts if that part is non-empty.
     * {@code slot("foo") == 12182}; {@code "{user1000}.following"} and {@code "{user1000}.followers"}
     * share a slot; {@code "foo{}{bar}"} hashes as a whole.
     */
    public static int slot(String key) {
        byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
        int start = 0;
        int end = bytes.length;
        int open = indexOf(bytes, (byte) '{', 0);
        if (open >= 0) {
            int close = indexOf(bytes, (byte) '}', open + 1);
            if (close > open + 1) {
                start = open + 1;
                end = close;
            }
        }
        return crc16(bytes, start, end) & (SLOTS - 1);
    }

    /** {@code DBSIZE} of every master, keyed by its address ({@code redis://127.0.0.1:PORT}). */
    public Map<String, Long> keysPerMaster() {
        Map<String, Long> counts = new LinkedHashMap<>();
        for (RedisServer master : masters) {
            try (RespClient client = RespClient.connect(master.host(), master.port())) {
                counts.put(master.uri(), client.dbSize());
            }
        }
        return counts;
    }

    /** Closes every node and deletes its directory. */
    @Override
    public void close() {
        masters.forEach(RedisServer::close);
    }

    private static void addSlots(RedisServer node, int from, int to) {
        // Redis 6.2 has no CLUSTER ADDSLOTSRANGE: one ADDSLOTS with every slot number
        String[] args = new String[2 + to - from + 1];
        args[0] = "CLUSTER";
        args[1] = "ADDSLOTS";
        for (int slot = from; slot <= to; slot++) {
            args[2 + slot - from] = Integer.toString(slot);
        }
        try (RespClient client = RespClient.connect(node.host(), node.port())) {
            client.command(args);
        }
    }

    private void awaitFormed() {
        Map<RedisServer, String> lastInfo = new LinkedHashMap<>();
        Await.result(START_TIMEOUT, () -> {
            boolean allOk = true;
            for (RedisServer node : masters) {
                try (RespClient client = RespClient.connect(node.host(), node.port())) {
                    String info = (String) client.command("CLUSTER", "INFO");
                    lastInfo.put(node, info);
                    allOk &= "ok".equals(RespClient.infoField(info, "cluster_state"))
                            && "3".equals(RespClient.infoField(info, "cluster_known_nodes"))
                            && "3".equals(RespClient.infoField(info, "cluster_size"))
                            && Integer.toString(SLOTS).equals(RespClient.infoField(info, "cluster_slots_ok"));
                }
            }
            return allOk ? Boolean.TRUE : null;
        }, () -> "the cluster to form; CLUSTER INFO per node:\n"
                + lastInfo.entrySet().stream()
                        .map(e -> "--- " + e.getKey().uri() + "\n" + e.getValue() + "log:\n" + e.getKey().logTail())
                        .collect(Collectors.joining("\n")));
    }

    private static int indexOf(byte[] bytes, byte target, int from) {
        for (int i = from; i < bytes.length; i++) {
            if (bytes[i] == target) {
                return i;
            }
        }
        return -1;
    }

    /** CRC16-CCITT (XMODEM): polynomial 0x1021, initial value 0, no reflection, as in Redis' crc16.c. */
    private static int crc16(byte[] bytes, int from, int to) {
        int crc = 0;
        for (int i = from; i < to; i++) {
            crc ^= (bytes[i] & 0xff) << 8;
            for (int bit = 0; bit < 8; bit++) {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
            }
            crc &= 0xffff;
        }
        return crc;
    }
}
