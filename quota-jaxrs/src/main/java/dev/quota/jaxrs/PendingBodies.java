package dev.quota.jaxrs;

import dev.quota.core.Caller;
import dev.quota.core.Customer;
import dev.quota.core.Identity;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.HttpHeaders;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Requests waiting for their body, on this instance: whether a request has a body to wait for
 * ({@link #announced}, told by its headers, never by reading it), and how many one customer and
 * one client address group may hold at once ({@link Identity#pendingBodies()}, default 16 each).
 * A request waiting for its body holds a worker thread of the server whatever quota its caller
 * has left, so the bound, not the quota, is what keeps one customer or one address from holding
 * every worker.
 *
 * <p>Thread-safe. Places live in two maps keyed by customer and by address group, each key's
 * tickets in a list changed only inside the map's atomic {@code compute}; a key exists only while
 * it holds a ticket, so the maps hold at most one entry per pending request. Each admitted request
 * holds a {@link Ticket} that gives its two places back once, whichever of the body's read or the
 * response's end comes first. A runtime that answers a request without running the response
 * filters never ends it here: a ticket older than {@link #HELD_AT_MOST} no longer counts, so such a
 * leak cannot lock a customer out for good.
 */
final class PendingBodies {

    /** How long a place counts at most: a request its runtime never ended gives it back then. */
    static final Duration HELD_AT_MOST = Duration.ofSeconds(60);

    private final ConcurrentHashMap<String, List<Ticket>> byCustomer = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, List<Ticket>> byAddress = new ConcurrentHashMap<>();
    private final LongSupplier nanoTime;

    PendingBodies() {
        this(System::nanoTime);
    }

    /** With the time read from {@code nanoTime}, for tests. */
    PendingBodies(LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
    }

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
        Ticket ticket = new Ticket(customerKey, addressKey, nanoTime.getAsLong() + HELD_AT_MOST.toNanos());
        if (customerKey != null && !take(byCustomer, customerKey, ticket, max)) {
            return null;
        }
        if (addressKey != null && !take(byAddress, addressKey, ticket, max)) {
            if (customerKey != null) {
                give(byCustomer, customerKey, ticket);
            }
            return null;
        }
        return ticket;
    }

    /** How many bodies {@code customer} has pending here now. */
    int pending(Customer customer) {
        List<Ticket> tickets = byCustomer.get(customer.kind() + ":" + customer.id());
        return tickets == null ? 0 : tickets.size();
    }

    private boolean take(ConcurrentHashMap<String, List<Ticket>> places, String key, Ticket ticket, int max) {
        long now = nanoTime.getAsLong();
        boolean[] taken = new boolean[1];
        places.compute(key, (k, held) -> {
            List<Ticket> tickets = held == null ? new ArrayList<>(2) : held;
            tickets.removeIf(t -> now - t.deadline > 0); // a request its runtime never ended
            taken[0] = tickets.size() < max;
            if (taken[0]) {
                tickets.add(ticket);
            }
            return tickets.isEmpty() ? null : tickets;
        });
        return taken[0];
    }

    private static void give(ConcurrentHashMap<String, List<Ticket>> places, String key, Ticket ticket) {
        places.computeIfPresent(key, (k, tickets) -> {
            tickets.remove(ticket);
            return tickets.isEmpty() ? null : tickets;
        });
    }

    /** One pending body's places; {@link #leave()} gives them back, once. */
    final class Ticket {
        private final @Nullable String customerKey;
        private final @Nullable String addressKey;
        /** When it stops counting, by {@link #nanoTime}. */
        private final long deadline;
        private final AtomicBoolean left = new AtomicBoolean();

        private Ticket(@Nullable String customerKey, @Nullable String addressKey, long deadline) {
            this.customerKey = customerKey;
            this.addressKey = addressKey;
            this.deadline = deadline;
        }

        /** Gives the places back; a second call does nothing. */
        void leave() {
            if (left.compareAndSet(false, true)) {
                if (customerKey != null) {
                    give(byCustomer, customerKey, this);
                }
                if (addressKey != null) {
                    give(byAddress, addressKey, this);
                }
            }
        }
    }
}
