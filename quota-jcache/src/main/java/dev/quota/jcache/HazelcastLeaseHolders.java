package dev.quota.jcache;

import com.hazelcast.cluster.Cluster;
import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import com.hazelcast.core.HazelcastInstance;
import dev.quota.core.spi.LeaseHolder;
import java.time.Duration;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Hazelcast member as the holder of its in-flight leases: a lease it takes records the tag of its
 * member UUID ({@link LeaseHolder#tagOf} of the UUID's text), and its takes free the slots of the
 * members the cluster removed while this member watched. A Hazelcast cluster removes a member that
 * left without a goodbye (killed, its host gone) once it stops answering; a member that shuts down
 * leaves the same way. Only the cluster decides who is removed, the same list on every member, and a
 * removed member's operations are refused by the members that removed it: no margin of time is
 * needed on top.
 *
 * <p>Which state is whose: {@link #removed} is guarded by {@code this} and changed by Hazelcast's
 * event threads (membership events) and by a request thread that forgets what is older than
 * {@link #REMEMBERED}; {@link #known} is an immutable snapshot, replaced under the same lock and read
 * by request threads without one. A member is remembered removed for an hour, the last 1,000 of them;
 * a member that joins again under the same UUID (Hazelcast's persistence restarts a member so) is
 * forgotten at its join. A member whose UUID changed (Hazelcast gives a member a new one when it
 * merges back after a split brain) takes its next leases under the new tag.
 *
 * <p>A client of the grid (not a member) takes leases without a tag, held until their deadline, and
 * still frees those of removed members.
 */
final class HazelcastLeaseHolders implements LeaseHolders {

    private static final Logger log = LoggerFactory.getLogger(HazelcastLeaseHolders.class);
    /** How long a removed member is remembered: its leases are freed early within that time of its removal. */
    static final Duration REMEMBERED = Duration.ofHours(1);
    /** The most removed members remembered, the last removed. */
    static final int MOST_REMEMBERED = 1_000;

    private final Cluster cluster;
    private final String cacheName;
    private final LongSupplier nanoTime;
    /** False for a client, which has no member UUID. */
    private final boolean member;
    private final @Nullable UUID registration;
    /** The members removed, by UUID, with when (by {@link #nanoTime}); in removal order. Guarded by {@code this}. */
    private final Map<UUID, Long> removed = new LinkedHashMap<>();
    private volatile Known known;

    HazelcastLeaseHolders(HazelcastInstance hazelcast, String cacheName, LongSupplier nanoTime) {
        this.cluster = hazelcast.getCluster();
        this.cacheName = cacheName;
        this.nanoTime = nanoTime;
        this.member = localUuid(cluster) != null;
        this.known = known(member ? localUuid(cluster) : null, nanoTime.getAsLong());
        this.registration = cluster.addMembershipListener(new MembershipListener() {
            @Override
            public void memberAdded(MembershipEvent event) {
                joined(event.getMember().getUuid());
            }

            @Override
            public void memberRemoved(MembershipEvent event) {
                removed(event.getMember().getUuid());
            }
        });
    }

    /** This member's tag, and the tags of the members removed within the last hour. Never throws. */
    @Override
    public LeaseHolder current() {
        Known now = known;
        UUID self = member ? localUuid(cluster) : null;
        long at = nanoTime.getAsLong();
        if (!Objects.equals(self, now.self) || at - now.forgetAtNanos >= 0) {
            synchronized (this) {
                now = known(self, at);
                known = now;
            }
        }
        return now.holder;
    }

    @Override
    public void close() {
        try {
            if (registration != null) {
                cluster.removeMembershipListener(registration);
            }
        } catch (RuntimeException e) {
            log.debug("could not stop watching the members of cache '{}': {}", cacheName, e.toString());
        }
    }

    /** A membership event: {@code uuid} left the cluster, its leases are freed from now on. */
    void removed(UUID uuid) {
        synchronized (this) {
            removed.remove(uuid);
            removed.put(uuid, nanoTime.getAsLong());
            known = known(known.self, nanoTime.getAsLong());
        }
        log.info("grid member {} left the cluster: cache '{}' frees its in-flight leases at each customer's next"
                + " request", uuid, cacheName);
    }

    /** A membership event: {@code uuid} is a member (again), so never dead. */
    void joined(UUID uuid) {
        synchronized (this) {
            if (removed.remove(uuid) != null) {
                known = known(known.self, nanoTime.getAsLong());
            }
        }
    }

    /** A snapshot for {@code self} at {@code at}, forgetting first what is too old. Called holding {@code this}. */
    private Known known(@Nullable UUID self, long at) {
        long kept = REMEMBERED.toNanos();
        Set<Long> dead = new HashSet<>();
        long oldest = at + kept;
        for (Iterator<Map.Entry<UUID, Long>> it = removed.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<UUID, Long> entry = it.next();
            if (at - entry.getValue() >= kept || removed.size() > MOST_REMEMBERED) {
                it.remove();
            } else if (!entry.getKey().equals(self)) {
                dead.add(LeaseHolder.tagOf(entry.getKey().toString()));
                oldest = Math.min(oldest, entry.getValue() + kept);
            }
        }
        // nothing to record and nobody to free: the take stays as it came, byte for byte
        LeaseHolder holder = self == null && dead.isEmpty() ? LeaseHolder.NONE
                : new LeaseHolder(self == null ? 0 : LeaseHolder.tagOf(self.toString()), dead);
        return new Known(self, holder, dead.isEmpty() ? at + kept : oldest);
    }

    /** This member's UUID, or null for a client or a member that cannot tell. */
    private static @Nullable UUID localUuid(Cluster cluster) {
        try {
            return cluster.getLocalMember().getUuid();
        } catch (RuntimeException e) {
            return null; // a client has no local member (UnsupportedOperationException)
        }
    }

    /**
     * What a take is given: the holder for {@code self}, and when the oldest removed member it lists
     * is to be forgotten (then the snapshot is built again).
     */
    private record Known(@Nullable UUID self, LeaseHolder holder, long forgetAtNanos) {
    }
}
