package dev.quota.jaxrs;

import dev.quota.core.Customer;
import dev.quota.core.Identity;
import dev.quota.core.net.ClientAddresses;
import jakarta.ws.rs.container.ContainerRequestContext;
import java.net.InetAddress;
import java.util.List;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * {@link ClientAddress#trustedProxies}: {@code X-Forwarded-For}, believed only from trusted peers.
 * Since it knows the peer, it also decides whether the config's {@code identity.userHeader} is believed.
 */
final class ForwardedClientAddress implements ClientAddress {

    private final ClientAddress peer;
    private final Supplier<Identity> identity;

    ForwardedClientAddress(ClientAddress peer, Supplier<Identity> identity) {
        this.peer = peer;
        this.identity = identity;
    }

    /** Where the connection's address comes from. */
    ClientAddress peer() {
        return peer;
    }

    @Override
    public String of(ContainerRequestContext request) {
        String peerText = peer.of(request);
        InetAddress peerAddress = peerText == null ? null : ClientAddresses.parse(peerText);
        if (peerAddress == null) {
            return peerText == null || peerText.isEmpty() ? "unknown" : peerText;
        }
        Identity settings = identity.get();
        if (!settings.trustedProxy(peerAddress)) {
            // the common case, and the one a spoofer hopes for: the header is not even read
            return ClientAddresses.format(peerAddress);
        }
        return ClientAddresses.format(settings.clientAddress(peerAddress, forwardedFor(request)));
    }

    /**
     * The customer an anonymous request is counted as ({@link Identity#anonymousCustomer}):
     * {@code user:<id>} from {@code identity.userHeader} when that is configured and the peer is a
     * trusted proxy, else {@code ip:<client>}, IPv6 grouped. Null when the peer is not an address
     * literal, so the caller falls back to the address as text.
     */
    @Nullable Customer anonymousCustomer(ContainerRequestContext request, Identity identity) {
        String peerText = peer.of(request);
        InetAddress peerAddress = peerText == null ? null : ClientAddresses.parse(peerText);
        if (peerAddress == null) {
            return null;
        }
        String userHeader = identity.userHeader();
        List<String> userValues = userHeader == null ? null : request.getHeaders().get(userHeader);
        // a repeated user header is ambiguous: not believed, the address counts
        String user = userValues != null && userValues.size() == 1 ? userValues.get(0) : null;
        return identity.anonymousCustomer(peerAddress, forwardedFor(request), user);
    }

    private static List<String> forwardedFor(ContainerRequestContext request) {
        List<String> values = request.getHeaders().get(X_FORWARDED_FOR);
        return values == null ? List.of() : values;
    }
}
