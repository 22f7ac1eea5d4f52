package dev.quota.testkit;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Picks a loopback port that is free right now, for a server a test starts later (a grid member,
 * a process). The port is drawn below the kernel's ephemeral range, not from the kernel's own
 * choice for port 0: that choice is an ephemeral port, and between the pick and the server's bind
 * any outgoing connection of the machine (a grid member dialling another, a Redis client) may be
 * given the same port as its source, and the server cannot start.
 */
public final class FreePort {

    /** A cluster node also listens on its port + 10000 (the cluster bus). */
    static final int CLUSTER_BUS_OFFSET = 10_000;
    private static final int ATTEMPTS = 200;
    /** The lowest port drawn: above the well-known and registered ports services tend to hold. */
    static final int LOWEST = 12_000;
    /** Linux's default ephemeral range starts here; read from the kernel where it says. */
    private static final int DEFAULT_EPHEMERAL_LOW = 32_768;

    private FreePort() {
    }

    /** A loopback port that is free right now, for a server a test starts (a grid member, a process). */
    public static int loopback() {
        return find(false);
    }

    /** A free port; with {@code withClusterBus}, one whose port + 10000 is free too, both below the ephemeral range. */
    static int find(boolean withClusterBus) {
        int ceiling = ephemeralLow() - 1 - (withClusterBus ? CLUSTER_BUS_OFFSET : 0);
        if (ceiling <= LOWEST) {
            throw new IllegalStateException("no ports below the ephemeral range (which starts at " + ephemeralLow()
                    + ") to draw from");
        }
        for (int i = 0; i < ATTEMPTS; i++) {
            int port = ThreadLocalRandom.current().nextInt(LOWEST, ceiling + 1);
            if (isFree(port) && (!withClusterBus || isFree(port + CLUSTER_BUS_OFFSET))) {
                return port;
            }
        }
        throw new IllegalStateException("no free loopback port (with cluster bus: " + withClusterBus
                + ") after " + ATTEMPTS + " attempts");
    }

    /** The first port of the kernel's ephemeral range ({@code /proc/sys/net/ipv4/ip_local_port_range}). */
    static int ephemeralLow() {
        try {
            // read line by line: a /proc file reports size 0, and a read sized by it may stop at a byte
            List<String> lines = Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range"));
            return Integer.parseInt(lines.get(0).trim().split("\\s+", -1)[0]);
        } catch (IOException | RuntimeException e) {
            return DEFAULT_EPHEMERAL_LOW;
        }
    }

    private static boolean isFree(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
