package dev.quota.core;

import java.util.Objects;

/**
 * What a request presents to say who it is: an API key, an authenticated principal, nothing, or
 * something ambiguous. Read from the request by the HTTP layer; judged by
 * {@link QuotaService#identify(RequestFacts)}.
 */
public sealed interface Credential {

    /** The key as sent (not yet checked for shape; never logged or echoed). */
    static Credential apiKey(String key) {
        return new ApiKey(key);
    }

    /** The name of the principal the runtime authenticated. */
    static Credential principal(String name) {
        return new Principal(name);
    }

    /** No credential at all. */
    static Credential none() {
        return None.INSTANCE;
    }

    /** A credential that cannot be attributed, such as the key header sent twice. */
    static Credential ambiguous() {
        return Ambiguous.INSTANCE;
    }

    /** An API key. */
    record ApiKey(String key) implements Credential {
        /** @throws NullPointerException if key is null */
        public ApiKey {
            Objects.requireNonNull(key, "key");
        }

        @Override
        public String toString() {
            return "ApiKey[***]";
        }
    }

    /** An authenticated principal. */
    record Principal(String name) implements Credential {
        /** @throws NullPointerException if name is null */
        public Principal {
            Objects.requireNonNull(name, "name");
        }
    }

    /** No credential. */
    enum None implements Credential {
        /** The only value. */
        INSTANCE
    }

    /** A credential sent twice or otherwise not attributable. */
    enum Ambiguous implements Credential {
        /** The only value. */
        INSTANCE
    }
}
