package dev.quota.core.spi;

import dev.quota.core.Limit;
import dev.quota.core.Refill;
import java.util.List;

/**
 * The limits one bucket enforces together, and the config version they come from.
 *
 * <p>Every limit here refills greedily or by interval: the core turns a calendar window into an
 * interval bucket whose key names the window, so a store never deals with time zones.
 *
 * @param limits  at least one limit; tokens are taken from all of them at once or from none
 * @param version the config version; a stored bucket with a lower version takes these limits on
 *                its next use and keeps its usage
 */
public record BucketSpec(List<Limit> limits, long version) {

    /** @throws IllegalArgumentException if limits are empty or one is calendar-aligned */
    public BucketSpec {
        limits = List.copyOf(limits);
        if (limits.isEmpty()) {
            throw new IllegalArgumentException("a bucket needs at least one limit");
        }
        for (Limit limit : limits) {
            if (limit.refill() instanceof Refill.Calendar) {
                throw new IllegalArgumentException("calendar limit " + limit.name() + " must be resolved to an interval first");
            }
        }
    }
}
