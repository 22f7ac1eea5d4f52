package dev.quota.core.config;

import dev.quota.core.Concurrency;
import dev.quota.core.spi.BucketSpec;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * The in-flight limit of a plan or a rule: {@code concurrency} (requests of one customer running at
 * once) and {@code leaseTimeout} (when a lease never given back comes back; default
 * {@link Concurrency#DEFAULT_LEASE_TIMEOUT}). Errors name their path, such as
 * {@code rules.transfers.concurrency: must be at most 100 but was 500}.
 */
final class ConcurrencyParser {

    private ConcurrencyParser() {
    }

    /** The plan's or rule's in-flight limit, or null when it has none or it is invalid (with an error). */
    static @Nullable Concurrency parse(ConfigMap owner, ConfigProblems problems) {
        if (!owner.has("concurrency")) {
            if (owner.has("leaseTimeout")) {
                problems.error(owner.path("leaseTimeout"), "applies to an in-flight limit: set concurrency too");
            }
            return null;
        }
        Long limit = owner.integer("concurrency", 1);
        if (limit != null && limit > BucketSpec.MAX_LEASES) {
            problems.error(owner.path("concurrency"), "must be at most " + BucketSpec.MAX_LEASES + " but was " + limit);
            limit = null;
        }
        Duration timeout = Concurrency.DEFAULT_LEASE_TIMEOUT;
        if (owner.has("leaseTimeout")) {
            timeout = LimitsParser.period(owner.raw("leaseTimeout"), owner.path("leaseTimeout"), problems);
            if (timeout != null && timeout.compareTo(Duration.ofSeconds(1)) < 0) {
                problems.error(owner.path("leaseTimeout"), "must be at least 1s but was "
                        + ConfigProblems.quote(String.valueOf(owner.raw("leaseTimeout"))));
                timeout = null;
            }
        }
        return limit == null || timeout == null ? null : new Concurrency(limit, timeout);
    }
}
