package dev.quota.core.internal;

import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;

/**
 * A bounded memo of identity to hashed key part, so the SHA-256 of a customer id is computed once
 * rather than on every decision. 100,000 customers cost about 20 MB; past the bound the memo starts
 * over (a miss costs one SHA-256, about a microsecond).
 */
final class IdHashes {

    /** Ids remembered at most; default for {@link Keys}. */
    static final int MAX = 100_000;

    private final ConcurrentHashMap<String, String> hashes = new ConcurrentHashMap<>();
    private final UnaryOperator<String> hash;
    private final int max;

    IdHashes(UnaryOperator<String> hash, int max) {
        this.hash = hash;
        this.max = max;
    }

    /** The hash of {@code id}, from memory when it was asked for before. */
    String of(String id) {
        String known = hashes.get(id);
        if (known != null) {
            return known;
        }
        String computed = hash.apply(id);
        if (hashes.size() >= max) {
            hashes.clear();
        }
        hashes.put(id, computed);
        return computed;
    }
}
