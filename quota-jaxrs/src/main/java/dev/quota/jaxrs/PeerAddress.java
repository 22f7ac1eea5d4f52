package dev.quota.jaxrs;

import dev.quota.jaxrs.internal.Peers;
import jakarta.ws.rs.container.ContainerRequestContext;

/**
 * {@link ClientAddress#peer()}: the TCP peer, as the runtime adapter that {@link QuotaFeature}
 * registered found it for this request. Never {@code "unknown"}: a request whose peer the runtime
 * does not report fails its quota check (503 and an ERROR log with the cause), so that it is never
 * counted in a bucket shared with everybody.
 */
final class PeerAddress implements ClientAddress {

    static final PeerAddress INSTANCE = new PeerAddress();

    private PeerAddress() {
    }

    @Override
    public String of(ContainerRequestContext request) {
        if (request.getProperty(Peers.PROPERTY) instanceof String address) {
            return address;
        }
        Object failure = request.getProperty(Peers.FAILURE);
        throw new IllegalStateException("the runtime reported no client address for this request, so it cannot be"
                + " counted by address (the adapters QuotaFeature registered at start-up are named in its INFO log"
                + " line \"quota: client addresses from ...\"); if your runtime reports it differently, supply it:"
                + " QuotaFeature.builder(service).clientAddress(request -> ...)",
                failure instanceof Throwable cause ? cause : null);
    }

    /** Whether {@code address} reads the peer through the runtime adapters. */
    static boolean usedBy(ClientAddress address) {
        return address == INSTANCE;
    }

    @Override
    public String toString() {
        return "ClientAddress.peer()";
    }
}
