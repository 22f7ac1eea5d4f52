package dev.quota.jaxrs;

import dev.quota.core.Customer;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Who a request comes from, as a {@link CallerResolver} sees it: a customer to count the request
 * against, or the reason there is none.
 *
 * @param kind     what the resolver found
 * @param customer the customer for {@link Kind#IDENTIFIED} and {@link Kind#ANONYMOUS}, else null
 */
public record Caller(Kind kind, @Nullable Customer customer) {

    private static final Caller UNKNOWN_KEY = new Caller(Kind.UNKNOWN_KEY, null);
    private static final Caller MISSING = new Caller(Kind.MISSING, null);
    private static final Caller BAD_KEY = new Caller(Kind.BAD_KEY, null);

    /** @throws IllegalArgumentException if a customer is given for a kind without one, or missing for one with */
    public Caller {
        Objects.requireNonNull(kind, "kind");
        boolean needsCustomer = kind == Kind.IDENTIFIED || kind == Kind.ANONYMOUS;
        if (needsCustomer != (customer != null)) {
            throw new IllegalArgumentException(kind + (needsCustomer ? " needs a customer" : " takes no customer"));
        }
    }

    /** A caller who presented a credential that maps to {@code customer}. */
    public static Caller identified(Customer customer) {
        return new Caller(Kind.IDENTIFIED, Objects.requireNonNull(customer, "customer"));
    }

    /** A caller without a credential, counted as {@code customer} (usually {@code ip:<address>}). */
    public static Caller anonymous(Customer customer) {
        return new Caller(Kind.ANONYMOUS, Objects.requireNonNull(customer, "customer"));
    }

    /** A credential that is not recognised, or not even well formed: answered 401. */
    public static Caller unknownKey() {
        return UNKNOWN_KEY;
    }

    /** No credential, and anonymous callers are not admitted: answered 401. */
    public static Caller missing() {
        return MISSING;
    }

    /** A request that cannot be attributed, such as a repeated key header: answered 400. */
    public static Caller badKey() {
        return BAD_KEY;
    }

    /**
     * Whether the request carried a credential of this resolver's kind (good or bad), so that
     * {@link CallerResolver#firstOf} stops here.
     */
    public boolean presentedCredential() {
        return kind == Kind.IDENTIFIED || kind == Kind.UNKNOWN_KEY || kind == Kind.BAD_KEY;
    }

    /** What a resolver found. */
    public enum Kind {
        /** A known customer. */
        IDENTIFIED,
        /** No credential; counted on the anonymous plan. */
        ANONYMOUS,
        /** A credential that maps to no customer (401, type {@code unknown-api-key}). */
        UNKNOWN_KEY,
        /** No credential where one is required (401, type {@code missing-api-key}). */
        MISSING,
        /** A malformed request, such as the key header sent twice (400, type {@code bad-api-key}). */
        BAD_KEY
    }
}
