package dev.quota.core;

import java.net.InetAddress;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Who a request comes from, as {@link QuotaService#identify(RequestFacts)} decided: a customer to
 * count the request against (and whether it is exempt), or why there is none.
 *
 * <p>A value: equal when every part is. Made by {@link #of(Customer)}, {@link #uncounted(Kind,
 * InetAddress)}, {@link #blocked(InetAddress, QuotaDecision)} or {@link #builder(Kind)}; a part
 * added in a later release gets a default and a builder method, so code that makes one keeps
 * compiling.
 */
public final class Caller {

    private final Kind kind;
    private final @Nullable Customer customer;
    private final @Nullable InetAddress address;
    private final boolean exempt;
    private final @Nullable QuotaDecision refusal;
    private final @Nullable String keyHash;

    private Caller(Kind kind, @Nullable Customer customer, @Nullable InetAddress address, boolean exempt,
                   @Nullable QuotaDecision refusal, @Nullable String keyHash) {
        Objects.requireNonNull(kind, "kind");
        boolean needsCustomer = kind == Kind.IDENTIFIED || kind == Kind.ANONYMOUS;
        if (needsCustomer != (customer != null)) {
            throw new IllegalArgumentException(kind + (needsCustomer ? " needs a customer" : " takes no customer"));
        }
        if ((kind == Kind.BLOCKED) != (refusal != null)) {
            throw new IllegalArgumentException(kind + (kind == Kind.BLOCKED ? " needs a refusal" : " takes no refusal"));
        }
        this.kind = kind;
        this.customer = customer;
        this.address = address;
        this.exempt = exempt;
        this.refusal = refusal;
        this.keyHash = keyHash;
    }

    /**
     * A known customer ({@link Kind#IDENTIFIED}), not exempt, address unknown: for programmatic
     * decisions.
     *
     * @throws NullPointerException if {@code customer} is null
     */
    public static Caller of(Customer customer) {
        return new Caller(Kind.IDENTIFIED, Objects.requireNonNull(customer, "customer"), null, false, null, null);
    }

    /**
     * A caller no customer was found for: {@link Kind#UNKNOWN_CREDENTIAL},
     * {@link Kind#MISSING_CREDENTIAL} or {@link Kind#AMBIGUOUS_CREDENTIAL}, from {@code address}
     * (null when unknown).
     *
     * @throws NullPointerException if {@code kind} is null
     * @throws IllegalArgumentException if {@code kind} needs a customer or a refusal
     */
    public static Caller uncounted(Kind kind, @Nullable InetAddress address) {
        return new Caller(kind, null, address, false, null, null);
    }

    /**
     * A {@link Kind#BLOCKED} caller: {@code address} guessed too many keys, and {@code refusal} is
     * the rejection to answer (429 with its retry-after).
     *
     * @throws NullPointerException if {@code refusal} is null
     */
    public static Caller blocked(@Nullable InetAddress address, QuotaDecision refusal) {
        return new Caller(Kind.BLOCKED, null, address, false, Objects.requireNonNull(refusal, "refusal"), null);
    }

    /**
     * A builder for a caller of {@code kind}: no customer, address unknown, not exempt, no refusal and
     * no key hash until set. Whether the parts fit the kind is checked in {@link Builder#build()}.
     */
    public static Builder builder(Kind kind) {
        return new Builder(kind);
    }

    /** What was found. */
    public Kind kind() {
        return kind;
    }

    /** The customer for {@link Kind#IDENTIFIED} and {@link Kind#ANONYMOUS}, else null. */
    public @Nullable Customer customer() {
        return customer;
    }

    /** The client address after trusted-proxy resolution, or null (the default) when unknown. */
    public @Nullable InetAddress address() {
        return address;
    }

    /**
     * Whether the allow-list names the customer, its API key or its address: its decisions are
     * {@link QuotaDecision.Outcome#BYPASSED}; default false.
     */
    public boolean exempt() {
        return exempt;
    }

    /** For {@link Kind#BLOCKED}: the rejection to answer (429 with its retry-after); else null. */
    public @Nullable QuotaDecision refusal() {
        return refusal;
    }

    /**
     * For a caller identified by API key: the key's SHA-256 (hex), under which an admitted request
     * makes the key known at its address (it keeps working there while the address is blocked for
     * guessing); else null (the default).
     */
    public @Nullable String keyHash() {
        return keyHash;
    }

    /** Whether a decision should be made for this caller (a customer was found). */
    public boolean counted() {
        return customer != null;
    }

    @Override
    public boolean equals(@Nullable Object o) {
        return o instanceof Caller other && kind == other.kind && Objects.equals(customer, other.customer)
                && Objects.equals(address, other.address) && exempt == other.exempt
                && Objects.equals(refusal, other.refusal) && Objects.equals(keyHash, other.keyHash);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, customer, address, exempt, refusal, keyHash);
    }

    @Override
    public String toString() {
        return "Caller[kind=" + kind + ", customer=" + customer + ", address=" + address + ", exempt=" + exempt
                + ", refusal=" + refusal + ", keyHash=" + keyHash + "]";
    }

    /** Collects a caller's parts; {@link #build()} checks that they fit its kind. */
    public static final class Builder {
        private final Kind kind;
        private @Nullable Customer customer;
        private @Nullable InetAddress address;
        private boolean exempt;
        private @Nullable QuotaDecision refusal;
        private @Nullable String keyHash;

        private Builder(Kind kind) {
            this.kind = kind;
        }

        /** The customer, needed by {@link Kind#IDENTIFIED} and {@link Kind#ANONYMOUS}; default none. */
        public Builder customer(@Nullable Customer customer) {
            this.customer = customer;
            return this;
        }

        /** The client address after trusted-proxy resolution; default null (unknown). */
        public Builder address(@Nullable InetAddress address) {
            this.address = address;
            return this;
        }

        /** Whether the allow-list exempts the caller; default false. */
        public Builder exempt(boolean exempt) {
            this.exempt = exempt;
            return this;
        }

        /** The rejection to answer, needed by {@link Kind#BLOCKED} and taken by no other kind; default none. */
        public Builder refusal(@Nullable QuotaDecision refusal) {
            this.refusal = refusal;
            return this;
        }

        /** The SHA-256 (hex) of the API key the caller was identified by; default null. */
        public Builder keyHash(@Nullable String keyHash) {
            this.keyHash = keyHash;
            return this;
        }

        /**
         * The caller.
         *
         * @throws NullPointerException if the kind is null
         * @throws IllegalArgumentException if the customer or refusal does not fit the kind
         */
        public Caller build() {
            return new Caller(kind, customer, address, exempt, refusal, keyHash);
        }
    }

    /** What identification found. */
    public enum Kind {
        /** A credential that maps to a customer. */
        IDENTIFIED,
        /** No credential; counted on the anonymous plan by client address or gateway user. */
        ANONYMOUS,
        /** A credential that maps to no customer (HTTP 401 {@code unknown-api-key}). */
        UNKNOWN_CREDENTIAL,
        /** No credential where one is required (HTTP 401 {@code missing-api-key}). */
        MISSING_CREDENTIAL,
        /** A credential sent twice (HTTP 400 {@code bad-api-key}). */
        AMBIGUOUS_CREDENTIAL,
        /** The client address guessed too many keys and this key may not be tried now (HTTP 429). */
        BLOCKED
    }
}
