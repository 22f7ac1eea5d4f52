package dev.quota.core;

import dev.quota.core.internal.lease.LeasedShares;
import dev.quota.core.spi.LeaseHolder;
import dev.quota.core.spi.QuotaStore;
import java.time.Clock;
import java.time.Duration;
import java.util.function.Consumer;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * What a {@link DecisionRunner} is made with, each part set by name: the stores, the clock, the
 * listener, this instance's place among the live instances, and the failure settings. Read once,
 * by the runner's constructor, which copies every part into a field of its own.
 *
 * <p>{@link #liveInstances}, {@link #instanceRank} and {@link #unavailableRetryAfter} have no
 * default here (the service's builder holds theirs) and must be set; {@link #leaseHolder},
 * {@link #warn} and {@link #shares} are optional, with the defaults their setters state.
 */
final class RunnerWiring {

    final QuotaStore store;
    final QuotaStore fallback;
    final Clock clock;
    final QuotaListener listener;
    @Nullable IntSupplier liveInstances;
    @Nullable IntSupplier instanceRank;
    @Nullable Duration unavailableRetryAfter;
    Supplier<LeaseHolder> leaseHolder = () -> LeaseHolder.NONE;
    @Nullable Consumer<String> warn;
    @Nullable LeasedShares shares;

    /**
     * Decisions on {@code store}, on {@code fallback} (in this JVM) when the failure policy says so,
     * timed by {@code clock}, with store failures and fallbacks told to {@code listener}.
     */
    RunnerWiring(QuotaStore store, QuotaStore fallback, Clock clock, QuotaListener listener) {
        this.store = store;
        this.fallback = fallback;
        this.clock = clock;
        this.listener = listener;
    }

    /** How many instances share the limits while the store is down; required. */
    RunnerWiring liveInstances(IntSupplier liveInstances) {
        this.liveInstances = liveInstances;
        return this;
    }

    /** This instance's place among the live instances, for the remainder of a divided limit (-1: unknown); required. */
    RunnerWiring instanceRank(IntSupplier instanceRank) {
        this.instanceRank = instanceRank;
        return this;
    }

    /** The retry-after of a refusal for the store's failure (503); required. */
    RunnerWiring unavailableRetryAfter(Duration unavailableRetryAfter) {
        this.unavailableRetryAfter = unavailableRetryAfter;
        return this;
    }

    /** Who takes this instance's leases on the shared store; default {@link LeaseHolder#NONE}. */
    RunnerWiring leaseHolder(Supplier<LeaseHolder> leaseHolder) {
        this.leaseHolder = leaseHolder;
        return this;
    }

    /** Where the throttled "store unavailable" warnings go (tests); default (null) the log. */
    RunnerWiring warn(@Nullable Consumer<String> warn) {
        this.warn = warn;
        return this;
    }

    /** The leased batches hot buckets of the store are served from; default (null) none: leasing is off. */
    RunnerWiring shares(@Nullable LeasedShares shares) {
        this.shares = shares;
        return this;
    }
}
