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
 * <p>A value: equal when every part is. Made by {@link #of(Credential, InetAddress)} or
 * {@link #builder(Credential, InetAddress)}; a fact added in a later release gets a default and a
 * builder method, so code that makes one keeps compiling.
 */
public final class RequestFacts {

    private final Credential credential;
    private final @Nullable InetAddress peer;
    private final List<String> forwardedFor;
    private final @Nullable String endUser;

    private RequestFacts(Credential credential, @Nullable InetAddress peer, List<String> forwardedFor,
                         @Nullable String endUser) {
        this.credential = Objects.requireNonNull(credential, "credential");
        this.peer = peer;
        this.forwardedFor = List.copyOf(forwardedFor);
        this.endUser = endUser;
    }

    /**
     * A request with a credential from {@code peer} (null when the runtime gave none), without proxy
     * headers.
     *
     * @throws NullPointerException if {@code credential} is null
     */
    public static RequestFacts of(Credential credential, @Nullable InetAddress peer) {
        return new RequestFacts(credential, peer, List.of(), null);
    }

    /**
     * A builder for a request with {@code credential} from {@code peer} (null when the runtime gave
     * none): no {@code X-Forwarded-For} values and no end user until set.
     */
    public static Builder builder(Credential credential, @Nullable InetAddress peer) {
        return new Builder(credential, peer);
    }

    /** What the request presented. */
    public Credential credential() {
        return credential;
    }

    /** The address that opened the connection, or null when the runtime gave none. */
    public @Nullable InetAddress peer() {
        return peer;
    }

    /** Every {@code X-Forwarded-For} value in the order received; default empty. */
    public List<String> forwardedFor() {
        return forwardedFor;
    }

    /** The value of {@code identity.userHeader} when sent exactly once, else null (the default). */
    public @Nullable String endUser() {
        return endUser;
    }

    @Override
    public boolean equals(@Nullable Object o) {
        return o instanceof RequestFacts other && credential.equals(other.credential)
                && Objects.equals(peer, other.peer) && forwardedFor.equals(other.forwardedFor)
                && Objects.equals(endUser, other.endUser);
    }

    @Override
    public int hashCode() {
        return Objects.hash(credential, peer, forwardedFor, endUser);
    }

    @Override
    public String toString() {
        return "RequestFacts[credential=" + credential + ", peer=" + peer + ", forwardedFor=" + forwardedFor
                + ", endUser=" + endUser + "]";
    }

    /** Collects what a request tells; {@link #build()} makes the value. */
    public static final class Builder {
        private final Credential credential;
        private final @Nullable InetAddress peer;
        private List<String> forwardedFor = List.of();
        private @Nullable String endUser;

        private Builder(Credential credential, @Nullable InetAddress peer) {
            this.credential = credential;
            this.peer = peer;
        }

        /**
         * Every {@code X-Forwarded-For} value in the order received; default none.
         *
         * @throws NullPointerException if {@code forwardedFor} is null (a null value: in {@link #build()})
         */
        public Builder forwardedFor(List<String> forwardedFor) {
            this.forwardedFor = Objects.requireNonNull(forwardedFor, "forwardedFor");
            return this;
        }

        /** The value of {@code identity.userHeader} when sent exactly once; default null. */
        public Builder endUser(@Nullable String endUser) {
            this.endUser = endUser;
            return this;
        }

        /**
         * The facts.
         *
         * @throws NullPointerException if the credential or a forwarded value is null
         */
        public RequestFacts build() {
            return new RequestFacts(credential, peer, forwardedFor, endUser);
        }
    }
}
