package dev.quota.core.spi;

import java.util.Objects;

/**
 * A change of one bucket after the fact, whatever it holds: tokens given back (never above
 * capacity), or taken even when the bucket lacks them, leaving a debt the refill pays before the
 * bucket admits again. What a settle of a cost known only afterwards applies to the buckets that
 * were charged its estimate: an export estimated at 10 that wrote 37 rows takes 27 more, one that
 * wrote 4 gives 6 back.
 *
 * @param key    the bucket
 * @param spec   its limits and config version
 * @param tokens tokens given back when positive, taken regardless when negative (see
 *               {@link BucketMath#addTokens}); never 0
 */
public record Adjustment(BucketKey key, BucketSpec spec, long tokens) {

    /** @throws IllegalArgumentException if {@code tokens} is 0 or {@link Long#MIN_VALUE} */
    public Adjustment {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(spec, "spec");
        if (tokens == 0 || tokens == Long.MIN_VALUE) {
            throw new IllegalArgumentException("tokens must be non-zero and above Long.MIN_VALUE but was " + tokens);
        }
    }
}
