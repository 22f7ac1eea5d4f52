package dev.quota.core;

import java.util.Objects;

/**
 * How callers are identified.
 *
 * @param header        the request header carrying the API key; default {@code X-API-Key}
 * @param missingKey    what happens to a request without a key; default {@link MissingKey#ANONYMOUS}
 * @param anonymousPlan the plan for anonymous callers, keyed by client IP; default {@code anonymous}
 */
public record Identity(String header, MissingKey missingKey, String anonymousPlan) {

    /** The defaults: {@code X-API-Key}, anonymous callers on plan {@code anonymous}. */
    public static final Identity DEFAULT = new Identity("X-API-Key", MissingKey.ANONYMOUS, "anonymous");

    /** @throws IllegalArgumentException if the header name is blank */
    public Identity {
        Objects.requireNonNull(header, "header");
        Objects.requireNonNull(missingKey, "missingKey");
        Objects.requireNonNull(anonymousPlan, "anonymousPlan");
        if (header.isBlank()) {
            throw new IllegalArgumentException("identity header must not be blank");
        }
    }

    /** What to do with a request that carries no API key. */
    public enum MissingKey {
        /** Limit it on the anonymous plan, keyed by client IP. */
        ANONYMOUS,
        /** Answer 401. */
        REJECT
    }
}
