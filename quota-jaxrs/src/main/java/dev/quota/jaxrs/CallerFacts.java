package dev.quota.jaxrs;

import dev.quota.core.Credential;
import dev.quota.core.Identity;
import dev.quota.core.RequestFacts;
import dev.quota.core.internal.Memo;
import dev.quota.core.net.ClientAddresses;
import jakarta.ws.rs.container.ContainerRequestContext;
import java.net.InetAddress;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What a request tells about its caller: credential, peer, proxy and end-user headers. The proxy
 * header is read only when the peer is a trusted proxy, the one case where it is believed.
 */
final class CallerFacts {

    /**
     * Recent peers' addresses, parsed once per address text: the runtime reports the peer as text
     * on every request, and a handful of peers (the load balancers, a NAT) send most of them.
     */
    private static final Memo<String, InetAddress> PEERS = new Memo<>(256, ClientAddresses::parse);

    private CallerFacts() {
    }

    /** The facts of {@code request} under {@code identity}, read with {@code resolver} and {@code clientAddress}. */
    static RequestFacts of(ContainerRequestContext request, Identity identity, CallerResolver resolver,
                           ClientAddress clientAddress) {
        Credential credential = resolver.resolve(request, identity);
        String peerText = clientAddress.of(request);
        InetAddress peer = peerText == null || peerText.isEmpty() ? null : PEERS.get(peerText);
        // believed only from a trusted proxy (Identity.clientAddress): not even looked up otherwise
        List<String> forwardedFor = peer == null || !identity.trustedProxy(peer) ? null
                : request.getHeaders().get(ClientAddress.X_FORWARDED_FOR);
        return RequestFacts.builder(credential, peer).forwardedFor(forwardedFor == null ? List.of() : forwardedFor)
                .endUser(endUser(request, identity)).build();
    }

    /** The end-user header when configured and sent exactly once (a repeated one is ambiguous: not believed). */
    private static @Nullable String endUser(ContainerRequestContext request, Identity identity) {
        String header = identity.userHeader();
        if (header == null) {
            return null;
        }
        List<String> values = request.getHeaders().get(header);
        return values != null && values.size() == 1 ? values.get(0) : null;
    }
}
