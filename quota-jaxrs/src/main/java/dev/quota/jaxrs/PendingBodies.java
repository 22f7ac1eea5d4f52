package dev.quota.jaxrs;

import dev.quota.core.Caller;
import dev.quota.core.Customer;
import dev.quota.core.Identity;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.HttpHeaders;
import java.net.InetAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * Requests waiting for their body, on this instance: whether a request has a body to wait for
 * ({@link #announced}, told by its headers, never by reading it), and how many one customer and
 * one client address group may hold at once ({@link Identity#pendingBodies()}, default 16 each).
 * A request waiting for its body holds a worker thread of the server whatever quota its caller
 * has left, so the bound, not the quota, is what keeps one customer or one address from holding
 * every worker.
 *
 * <p>Thread-safe. Counts live in two maps keyed by customer and by address group; an entry exists
 * only while its count is above zero (it is removed, atomically, when its last body leaves), so the
 * maps hold at most one entry per pending request. Each admitted request holds a {@link Ticket}
 * that gives its two places back once, whichever of the body's read or the response's end comes first.
 */
final class PendingBodies {

    private final ConcurrentHashMap<String, Integer> byCustomer = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Integer> byAddress = new ConcurrentHashMap<>();

    /**
     * Whether a body may follow the request's headers: yes unless it declares
     * {@code Content-Length: 0} (a chunked body, or an HTTP/2 stream, need not declare its length).
     * Never reads the body: asking the runtime ({@code hasEntity()}) waits for its first byte, which
     * a client may never send, holding a worker before the request's lease is taken.
     */
    static boolean announced(ContainerRequestContext request) {
        String length = request.getHeaderString(HttpHeaders.CONTENT_LENGTH);
        if (length != null) {
            try {
                return Long.parseLong(length.trim()) > 0;
            } catch (NumberFormatException e) {
                return true; // the runtime refuses a malformed length before here; count it as a body
            }
        }
        return true;
    }

    /**
     * A place for one more body of {@code caller}, or null when its customer or its address group
     * already holds {@code identity.pendingBodies()}.
     */
    @Nullable Ticket enter(Caller caller, Identity identity) {
        Customer customer = caller.customer();
        InetAddress address = caller.address();
        String customerKey = customer == null ? null : customer.kind() + ":" + customer.id();
        String addressKey = address == null ? null : identity.group(address);
        int max = identity.pendingBodies();
        if (customerKey != null && !take(byCustomer, customerKey, max)) {
            return null;
        }
        if (addressKey != null && !take(byAddress, addressKey, max)) {
            if (customerKey != null) {
                give(byCustomer, customerKey);
            }
            return null;
        }
        return new Ticket(customerKey, addressKey);
    }

    /** How many bodies {@code customer} has pending here now (tests, operators). */
    int pending(Customer customer) {
        return byCustomer.getOrDefault(customer.kind() + ":" + customer.id(), 0);
    }

    private static boolean take(ConcurrentHashMap<String, Integer> counts, String key, int max) {
        boolean[] taken = new boolean[1];
        counts.compute(key, (k, count) -> {
            int now = count == null ? 0 : count;
            taken[0] = now < max;
            return taken[0] ? Integer.valueOf(now + 1) : count;
        });
        return taken[0];
    }

    private static void give(ConcurrentHashMap<String, Integer> counts, String key) {
        counts.computeIfPresent(key, (k, count) -> count <= 1 ? null : Integer.valueOf(count - 1));
    }

    /** One pending body's places; {@link #leave()} gives them back, once. */
    final class Ticket {
        private final @Nullable String customerKey;
        private final @Nullable String addressKey;
        private final AtomicBoolean left = new AtomicBoolean();

        private Ticket(@Nullable String customerKey, @Nullable String addressKey) {
            this.customerKey = customerKey;
            this.addressKey = addressKey;
        }

        /** Gives the places back; a second call does nothing. */
        void leave() {
            if (left.compareAndSet(false, true)) {
                if (customerKey != null) {
                    give(byCustomer, customerKey);
                }
                if (addressKey != null) {
                    give(byAddress, addressKey);
                }
            }
        }
    }
}
