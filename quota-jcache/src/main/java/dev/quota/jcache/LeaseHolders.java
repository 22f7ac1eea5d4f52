package dev.quota.jcache;

import dev.quota.core.spi.LeaseHolder;

/**
 * Who takes this instance's in-flight leases on the grid, and which instances the grid knows dead
 * ({@link LeaseHolder}): what a {@link JCacheStore} gives a lease take that comes without a holder.
 * On Hazelcast, {@link HazelcastLeaseHolders}; elsewhere {@link #NONE}.
 */
interface LeaseHolders extends AutoCloseable {

    /** Nobody known dead, no tag: every lease held until given back or its deadline. */
    LeaseHolders NONE = new LeaseHolders() {
        @Override
        public LeaseHolder current() {
            return LeaseHolder.NONE;
        }

        @Override
        public void close() {
        }
    };

    /** The holder of a lease taken now; never throws. */
    LeaseHolder current();

    /** Stops watching the grid (best effort); never throws. */
    @Override
    void close();
}
