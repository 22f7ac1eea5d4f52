package dev.quota.core.spi;

import java.util.Objects;

/**
 * One bucket of a consume: where it is, what it enforces and how many tokens the decision takes.
 *
 * <p>A request of a free customer to the transfers endpoint is one consume of four takes: the
 * customer's plan bucket (1 token, {@code chargedOnRefusal}), its calendar-day bucket (1 token,
 * {@code chargedOnRefusal}), its transfers bucket (1) and the transfers bucket every customer shares
 * (1).
 *
 * @param key              the bucket
 * @param spec             its limits and config version
 * @param tokens           tokens to take, {@code >= 1}
 * @param chargedOnRefusal whether this take is still taken when another take of the consume lacks
 *                         tokens, provided every take so marked has enough itself: a plan's request
 *                         limits are charged for a request that an endpoint or amount limit refuses
 */
public record Take(BucketKey key, BucketSpec spec, long tokens, boolean chargedOnRefusal) {

    /** @throws IllegalArgumentException if tokens < 1 */
    public Take {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(spec, "spec");
        if (tokens < 1) {
            throw new IllegalArgumentException("tokens must be >= 1 but was " + tokens);
        }
    }

    /** A take that is given back, or rather never taken, when another take of the consume lacks tokens. */
    public static Take of(BucketKey key, BucketSpec spec, long tokens) {
        return new Take(key, spec, tokens, false);
    }
}
