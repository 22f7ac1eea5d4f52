package dev.quota.core;

import java.net.InetAddress;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Who a request comes from, as {@link QuotaService#identify(RequestFacts)} decided: a customer to
 * count the request against (and whether it is exempt), or why there is none.
 *
 * @param kind     what was found
 * @param customer the customer for {@link Kind#IDENTIFIED} and {@link Kind#ANONYMOUS}, else null
 * @param address  the client address after trusted-proxy resolution, or null when unknown
 * @param exempt   whether the allow-list names the customer, its API key or its address: its
 *                 decisions are {@link QuotaDecision.Outcome#BYPASSED}
 * @param refusal  for {@link Kind#BLOCKED}: the rejection to answer (429 with its retry-after)
 * @param keyHash  for a caller identified by API key: the key's SHA-256 (hex), under which an
 *                 admitted request makes the key known at its address (it keeps working there while
 *                 the address is blocked for guessing); else null
 */
public record Caller(Kind kind, @Nullable Customer customer, @Nullable InetAddress address, boolean exempt,
                     @Nullable QuotaDecision refusal, @Nullable String keyHash) {

    /** @throws IllegalArgumentException if the customer or refusal does not fit the kind */
    public Caller {
        Objects.requireNonNull(kind, "kind");
        boolean needsCustomer = kind == Kind.IDENTIFIED || kind == Kind.ANONYMOUS;
        if (needsCustomer != (customer != null)) {
            throw new IllegalArgumentException(kind + (needsCustomer ? " needs a customer" : " takes no customer"));
        }
        if ((kind == Kind.BLOCKED) != (refusal != null)) {
            throw new IllegalArgumentException(kind + (kind == Kind.BLOCKED ? " needs a refusal" : " takes no refusal"));
        }
    }

    /** A caller not identified by an API key. */
    public Caller(Kind kind, @Nullable Customer customer, @Nullable InetAddress address, boolean exempt,
                  @Nullable QuotaDecision refusal) {
        this(kind, customer, address, exempt, refusal, null);
    }

    /** A known customer, not exempt, address unknown: for programmatic decisions. */
    public static Caller of(Customer customer) {
        return new Caller(Kind.IDENTIFIED, Objects.requireNonNull(customer, "customer"), null, false, null);
    }

    /** Whether a decision should be made for this caller (a customer was found). */
    public boolean counted() {
        return customer != null;
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
