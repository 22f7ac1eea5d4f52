package dev.quota.core;

import java.net.InetAddress;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What one request tells about its caller, as the HTTP layer read it, before anything is believed:
 * the credential, the connection's peer address, the {@code X-Forwarded-For} values (believed only
 * from {@code identity.trustedProxies}) and the end-user header (believed only when
 * {@code identity.userHeader} is configured and the peer is a trusted proxy).
 *
 * @param credential   what the request presented
 * @param peer         the address that opened the connection, or null when the runtime gave none
 * @param forwardedFor every {@code X-Forwarded-For} value in the order received; may be empty
 * @param endUser      the value of {@code identity.userHeader} when sent exactly once, else null
 */
public record RequestFacts(Credential credential, @Nullable InetAddress peer, List<String> forwardedFor,
                           @Nullable String endUser) {

    /** Copies the list. */
    public RequestFacts {
        Objects.requireNonNull(credential, "credential");
        forwardedFor = List.copyOf(forwardedFor);
    }

    /** A request with a credential from {@code peer}, without proxy headers. */
    public static RequestFacts of(Credential credential, @Nullable InetAddress peer) {
        return new RequestFacts(credential, peer, List.of(), null);
    }
}
