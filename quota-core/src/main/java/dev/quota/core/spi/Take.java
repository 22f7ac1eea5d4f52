package dev.quota.core.spi;

import java.util.Objects;

/**
 * One bucket of a consume: where it is, what it enforces and how many tokens the decision takes.
 *
 * <p>An export (rule cost 10) by a free customer is one consume of three takes: the customer's
 * plan bucket (10 tokens; 1 when refused), its calendar-day bucket (10; 1 when refused) and its
 * export bucket (1). When the export bucket is empty, the plan buckets still give 1 token each: the
 * request was made.
 *
 * @param key           the bucket
 * @param spec          its limits and config version
 * @param tokens        tokens to take when the consume is admitted, {@code >= 1}
 * @param refusalTokens tokens to take even when another take of the consume lacks tokens (0: none),
 *                      provided every take with refusal tokens has that many itself; at most
 *                      {@code tokens}
 */
public record Take(BucketKey key, BucketSpec spec, long tokens, long refusalTokens) {

    /** @throws IllegalArgumentException if {@code tokens < 1}, or refusalTokens is negative or above tokens */
    public Take {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(spec, "spec");
        if (tokens < 1) {
            throw new IllegalArgumentException("tokens must be >= 1 but was " + tokens);
        }
        if (refusalTokens < 0 || refusalTokens > tokens) {
            throw new IllegalArgumentException("refusalTokens must be 0 to " + tokens + " but was " + refusalTokens);
        }
    }

    /** A take that is left alone when another take of the consume lacks tokens. */
    public static Take of(BucketKey key, BucketSpec spec, long tokens) {
        return new Take(key, spec, tokens, 0);
    }

    /** Whether this take is charged when the consume is refused. */
    public boolean chargedOnRefusal() {
        return refusalTokens > 0;
    }
}
