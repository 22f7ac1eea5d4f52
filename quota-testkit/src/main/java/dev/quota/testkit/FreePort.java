package dev.quota.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/** Picks a loopback port that is free right now (the kernel's choice for port 0). */
public final class FreePort {

    /** A cluster node also listens on its port + 10000 (the cluster bus). */
    static final int CLUSTER_BUS_OFFSET = 10_000;
    private static final int ATTEMPTS = 50;

    private FreePort() {
    }

    /** A loopback port that is free right now, for a server a test starts (a grid member, a process). */
    public static int loopback() {
        return find(false);
    }

    /** A free port; with {@code withClusterBus}, one whose port + 10000 is free and below 65536 too. */
    static int find(boolean withClusterBus) {
        for (int i = 0; i < ATTEMPTS; i++) {
            int port = bind(0);
            if (!withClusterBus) {
                return port;
            }
            int bus = port + CLUSTER_BUS_OFFSET;
            if (bus <= 65_535 && isFree(bus)) {
                return port;
            }
        }
        throw new IllegalStateException("no free loopback port (with cluster bus: " + withClusterBus
                + ") after " + ATTEMPTS + " attempts");
    }

    private static boolean isFree(int port) {
        try {
            bind(port);
            return true;
        } catch (UncheckedIOException e) {
            return false;
        }
    }

    private static int bind(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot bind 127.0.0.1:" + port, e);
        }
    }
}
