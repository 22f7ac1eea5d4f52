package dev.quota.jaxrs.internal;

import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import org.jspecify.annotations.Nullable;

/**
 * Where a runtime adapter leaves the peer address of a request: the request property
 * {@link #PROPERTY}, which only server code can set (a client cannot send a request property).
 */
public final class Peers {

    /** The request property holding the TCP peer's address as text, such as {@code 203.0.113.7}. */
    public static final String PROPERTY = "dev.quota.jaxrs.peer";

    /** The request property holding what went wrong when an adapter failed to read the address. */
    public static final String FAILURE = "dev.quota.jaxrs.peer.failure";

    /**
     * The adapters' priority: {@code Priorities.AUTHENTICATION - 100}, so the address is known
     * before authentication filters and the quota filter run.
     */
    public static final int PRIORITY = Priorities.AUTHENTICATION - 100;

    private Peers() {
    }

    /** Whether an adapter already found the address of {@code request} (another runtime's adapter ran first). */
    static boolean known(ContainerRequestContext request) {
        return request.getProperty(PROPERTY) != null;
    }

    /** Leaves {@code address} for the quota filter; nothing when the runtime gave none. */
    static void record(ContainerRequestContext request, @Nullable String address) {
        String normalized = normalize(address);
        if (normalized != null) {
            request.setProperty(PROPERTY, normalized);
        }
    }

    /** Leaves the reason an adapter could not read the address, for the quota filter's log. */
    static void failed(ContainerRequestContext request, RuntimeException failure) {
        request.setProperty(FAILURE, failure);
    }

    /** The address of a socket, as text; null for anything but an internet socket address. */
    static @Nullable String text(@Nullable SocketAddress socket) {
        if (!(socket instanceof InetSocketAddress inet)) {
            return null;
        }
        InetAddress address = inet.getAddress();
        return address == null ? inet.getHostString() : address.getHostAddress();
    }

    /**
     * The address as the quota filter parses it: without the brackets some runtimes put around
     * IPv6 ({@code [2001:db8::1]}) and without an IPv6 zone ({@code fe80::1%eth0}); null when empty.
     */
    static @Nullable String normalize(@Nullable String address) {
        if (address == null) {
            return null;
        }
        String text = address.trim();
        if (text.length() > 2 && text.charAt(0) == '[' && text.charAt(text.length() - 1) == ']') {
            text = text.substring(1, text.length() - 1);
        }
        int zone = text.indexOf('%');
        if (zone > 0 && text.indexOf(':') >= 0) {
            text = text.substring(0, zone);
        }
        return text.isEmpty() ? null : text;
    }
}
