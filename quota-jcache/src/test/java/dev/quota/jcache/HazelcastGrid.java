package dev.quota.jcache;

import com.hazelcast.cache.impl.HazelcastServerCachingProvider;
import com.hazelcast.config.CacheSimpleConfig;
import com.hazelcast.config.Config;
import com.hazelcast.config.InMemoryFormat;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.config.SplitBrainProtectionConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import dev.quota.testkit.Await;
import dev.quota.testkit.FreePort;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.cache.Cache;
import javax.cache.CacheManager;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real Hazelcast cluster for one test class: embedded members in this JVM, each its own
 * {@link HazelcastInstance} listening on a free loopback port, joined by TCP-IP to the others (no
 * multicast), each with its own JCache {@link CacheManager} as Payara gives one to its applications.
 * Caches created through it keep one synchronous backup (Hazelcast's default), so a member's data
 * survives its loss.
 *
 * <pre>{@code
 * @RegisterExtension
 * static HazelcastGrid grid = HazelcastGrid.members(2);   // this class's own grid
 * @RegisterExtension
 * static HazelcastGrid grid = HazelcastGrid.shared();     // two members shared by every class of the run
 * }</pre>
 *
 * <p>A shared grid starts with the first class that asks for it and stops at the end of the run;
 * a class that stops or adds members must have its own.
 *
 * <p>Caches named {@code object-*} hold values in Hazelcast's in-memory format OBJECT; caches named
 * {@code protected-*} answer only while {@link #protectedMinimum} members are in the cluster
 * (split-brain protection), the way a grid refuses to answer when it has lost its quorum.
 */
final class HazelcastGrid implements BeforeAllCallback, AfterAllCallback, ExtensionContext.Store.CloseableResource {

    /** Ports for members started later ({@link #startMember()}) are reserved in the join list up front. */
    private static final int SPARE_PORTS = 2;
    private static final String PROTECTION = "quorum";

    private static final ExtensionContext.Namespace SHARED = ExtensionContext.Namespace.create(HazelcastGrid.class);

    private final int initialMembers;
    private final int protectedMinimum;
    private final boolean shared;
    /** For a shared handle: the grid it uses, found or started in {@link #beforeAll}. */
    private HazelcastGrid grid = this;
    private final String clusterName = "quota-test-" + UUID.randomUUID();
    private final List<Integer> ports = new ArrayList<>();
    private final List<HazelcastInstance> members = new ArrayList<>();
    private final List<CacheManager> managers = new ArrayList<>();

    private HazelcastGrid(int initialMembers, boolean shared) {
        this.initialMembers = initialMembers;
        this.protectedMinimum = initialMembers;
        this.shared = shared;
    }

    /** A grid of {@code count} members of the class's own, started before its tests and stopped after. */
    static HazelcastGrid members(int count) {
        return new HazelcastGrid(count, false);
    }

    /** Two members shared by every class that asks, started once and stopped at the end of the run. */
    static HazelcastGrid shared() {
        return new HazelcastGrid(2, true);
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        if (shared) {
            grid = context.getRoot().getStore(SHARED).getOrComputeIfAbsent("grid", k -> {
                HazelcastGrid started = new HazelcastGrid(initialMembers, false);
                started.start();
                return started;
            }, HazelcastGrid.class);
        } else {
            start();
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (!shared) {
            stop();
        }
    }

    /** The end of the run, for the shared grid. */
    @Override
    public void close() {
        stop();
    }

    /** Starts the initial members, one after the other, and waits until they form one cluster. */
    void start() {
        long started = System.nanoTime();
        for (int i = 0; i < initialMembers + SPARE_PORTS; i++) {
            ports.add(FreePort.loopback());
        }
        for (int i = 0; i < initialMembers; i++) {
            startMember();
        }
        System.out.printf("hazelcast grid of %d members ready in %d ms%n", initialMembers,
                (System.nanoTime() - started) / 1_000_000);
    }

    /** Stops every member still running. */
    void stop() {
        for (HazelcastInstance member : members) {
            if (member.getLifecycleService().isRunning()) {
                member.getLifecycleService().terminate();
            }
        }
    }

    /** Starts one more member on the next reserved port and waits until it has joined; returns its index. */
    int startMember() {
        requireOwn();
        int index = members.size();
        if (index >= ports.size()) {
            throw new IllegalStateException("no reserved port left for member " + index);
        }
        HazelcastInstance member = Hazelcast.newHazelcastInstance(config(ports.get(index)));
        members.add(member);
        managers.add(new HazelcastServerCachingProvider(member).getCacheManager());
        int expected = (int) members.stream().filter(m -> m.getLifecycleService().isRunning()).count();
        Await.until(Duration.ofMinutes(2), () -> member.getCluster().getMembers().size() == expected,
                () -> "member " + index + " to see " + expected + " members");
        // joined is not settled: partitions migrate to the new member afterwards, and a test that asks
        // who owns a key (or kills an owner) must see the table the grid will keep
        Await.until(Duration.ofMinutes(2), () -> member.getPartitionService().isClusterSafe(),
                () -> "partitions to settle after member " + index + " joined");
        return index;
    }

    /** Member {@code index}, in start order. */
    HazelcastInstance member(int index) {
        return grid.members.get(index);
    }

    /** The JCache manager of member {@code index}: what a server gives the application running on it. */
    CacheManager cacheManager(int index) {
        return grid.managers.get(index);
    }

    /** The cache {@code name} as member {@code index} sees it, created on first use. */
    Cache<String, byte[]> cache(int index, String name) {
        return JCacheStore.cache(cacheManager(index), name);
    }

    /** Kills member {@code index} without a goodbye, as a crash would; the others notice its closed connections. */
    void terminate(int index) {
        requireOwn();
        members.get(index).getLifecycleService().terminate();
    }

    /** The index of the member that owns {@code key}'s partition, as member {@code asSeenBy} knows it. */
    int ownerOf(String key, int asSeenBy) {
        if (grid != this) {
            return grid.ownerOf(key, asSeenBy);
        }
        var owner = members.get(asSeenBy).getPartitionService().getPartition(key).getOwner();
        for (int i = 0; i < members.size(); i++) {
            if (members.get(i).getLifecycleService().isRunning()
                    && members.get(i).getCluster().getLocalMember().getUuid().equals(owner.getUuid())) {
                return i;
            }
        }
        throw new IllegalStateException("no running member owns " + key);
    }

    /** A new key whose partition member {@code index} owns. */
    String keyOwnedBy(int index, String prefix) {
        for (int attempt = 0; attempt < 10_000; attempt++) {
            String key = prefix + UUID.randomUUID();
            if (ownerOf(key, index) == index) {
                return key;
            }
        }
        throw new IllegalStateException("member " + index + " owns no partition");
    }

    /**
     * A member of cluster {@code clusterName} on {@code 127.0.0.1:port} that joins the members on
     * {@code memberPorts} by TCP only (no multicast, no discovery), sized for a test grid on 2 cores:
     * no join delay, 71 partitions, few threads. Members in other JVMs ({@link GridMemberProcess})
     * use the same.
     */
    static Config loopback(String clusterName, int port, List<String> memberPorts) {
        Config config = new Config();
        config.setClusterName(clusterName);
        config.setProperty("hazelcast.logging.type", "slf4j");
        config.setProperty("hazelcast.phone.home.enabled", "false");
        config.setProperty("hazelcast.shutdownhook.enabled", "false");
        config.setProperty("hazelcast.socket.bind.any", "false");
        config.setProperty("hazelcast.wait.seconds.before.join", "0");
        config.setProperty("hazelcast.partition.count", "71");
        config.setProperty("hazelcast.partition.operation.thread.count", "2");
        config.setProperty("hazelcast.operation.generic.thread.count", "2");
        config.setProperty("hazelcast.io.thread.count", "1");
        NetworkConfig network = config.getNetworkConfig();
        network.setPort(port).setPortAutoIncrement(false);
        network.getInterfaces().setEnabled(true).addInterface("127.0.0.1");
        JoinConfig join = network.getJoin();
        join.getMulticastConfig().setEnabled(false);
        join.getAutoDetectionConfig().setEnabled(false);
        join.getTcpIpConfig().setEnabled(true);
        for (String p : memberPorts) {
            join.getTcpIpConfig().addMember("127.0.0.1:" + p);
        }
        return config;
    }

    private void requireOwn() {
        if (shared) {
            throw new IllegalStateException("a shared grid is not stopped or grown by one class: use members(n)");
        }
    }

    private Config config(int port) {
        Config config = loopback(clusterName, port, ports.stream().map(String::valueOf).toList());
        config.addCacheConfig(new CacheSimpleConfig().setName("object-*").setInMemoryFormat(InMemoryFormat.OBJECT)
                .setKeyType(String.class.getName()).setValueType(byte[].class.getName()));
        config.addSplitBrainProtectionConfig(new SplitBrainProtectionConfig(PROTECTION, true, protectedMinimum));
        config.addCacheConfig(new CacheSimpleConfig().setName("protected-*").setSplitBrainProtectionName(PROTECTION)
                .setKeyType(String.class.getName()).setValueType(byte[].class.getName()));
        return config;
    }
}
