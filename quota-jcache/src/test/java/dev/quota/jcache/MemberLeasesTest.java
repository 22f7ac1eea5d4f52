package dev.quota.jcache;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.LeaseHolder;
import dev.quota.core.spi.Take;
import dev.quota.testkit.Await;
import dev.quota.testkit.MutableClock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A JCache store on Hazelcast holds the leases it takes by its member, and frees those of members
 * the cluster removed, in every update mode, on a real grid of embedded members: a terminated
 * member (Hazelcast's kill: no goodbye) is dead for the others once the cluster removed it, a live
 * one never. {@link KilledMemberLeasesTest} does the same with processes killed by {@code kill -9}.
 */
class MemberLeasesTest {

    /** Three members; the two spare ports of the grid are the members each mode starts and terminates. */
    @RegisterExtension
    static HazelcastGrid grid = HazelcastGrid.members(3);

    private static final BucketSpec FIVE = BucketSpec.leases("transfers", 5, Duration.ofSeconds(60), 1);

    private final MutableClock clock = MutableClock.at("2026-12-03T10:00:00Z"); // no lease reaches its deadline

    private JCacheStore store(int member, JCacheStore.Update update) {
        return JCacheStore.builder(grid.cache(member, "leases-" + update)).update(update).clock(clock).build();
    }

    private static ConsumeResult take(JCacheStore store, BucketKey key) {
        return store.tryConsume(List.of(Take.of(key, FIVE, 1))).get(0);
    }

    private static long tag(int member) {
        return LeaseHolder.tagOf(grid.member(member).getCluster().getLocalMember().getUuid().toString());
    }

    @ParameterizedTest
    @EnumSource(JCacheStore.Update.class)
    void leasesOfATerminatedMember_areFreedByTheNextTakeOnceTheClusterRemovedIt_aLiveMembersNever(
            JCacheStore.Update update) {
        int leaving = grid.startMember();
        long leavingTag = tag(leaving);
        CountingCache counting = CountingCache.of(grid.cache(0, "leases-" + update));
        JCacheStore deciding = JCacheStore.builder(counting.cache()).update(update).clock(clock).build();
        JCacheStore live = store(1, update);
        JCacheStore dying = store(leaving, update);
        BucketKey key = new BucketKey("quota:{c.member-" + UUID.randomUUID() + "}:l");
        for (int i = 0; i < 3; i++) {
            assertThat(take(dying, key).tokensTaken()).isTrue();
        }
        assertThat(take(live, key).tokensTaken()).isTrue();
        assertThat(take(deciding, key).tokensTaken()).isTrue();
        assertThat(take(deciding, key).tokensTaken()).as("five held").isFalse();

        grid.terminate(leaving);
        Await.until(Duration.ofMinutes(2), () -> deciding.leaseHolder().deadTags().contains(leavingTag),
                () -> "the cluster to remove member " + leaving);

        counting.reset();
        ConsumeResult first = take(deciding, key);
        assertThat(first.tokensTaken()).isTrue();
        assertThat(first.remaining()).as("the terminated member's three freed, one taken").containsExactly(2);
        assertThat(counting.calls()).as("in the take's own entry change").isEqualTo(
                update == JCacheStore.Update.COMPARE_AND_SWAP ? Map.of("get", 1, "replace", 1) : Map.of("invoke", 1));
        assertThat(take(deciding, key).tokensTaken()).isTrue();
        assertThat(take(live, key).tokensTaken()).as("on the live member too").isTrue();
        assertThat(take(deciding, key).tokensTaken()).as("the live members' leases still count").isFalse();
        assertThat(deciding.leaseHolder().deadTags()).doesNotContain(tag(0), tag(1), tag(2));
        assertThat(live.leaseHolder().deadTags()).contains(leavingTag).doesNotContain(tag(0), tag(1), tag(2));
        deciding.close();
        live.close();
        dying.close();
    }

    @Test
    void aStoreOnHazelcast_holdsItsLeasesByItsMember_unlessBuiltWithoutMemberLeases() {
        JCacheStore byMember = store(0, JCacheStore.Update.COMPARE_AND_SWAP);
        JCacheStore byNobody = JCacheStore.builder(grid.cache(0, "leases-none")).memberLeases(false).clock(clock)
                .build();

        assertThat(byMember.leaseHolder().tag()).isEqualTo(tag(0));
        assertThat(byMember.describe()).endsWith(", in-flight leases held by this grid member");
        assertThat(byNobody.leaseHolder()).isSameAs(LeaseHolder.NONE);
        assertThat(byNobody.describe()).doesNotContain("in-flight leases");
        byMember.close();
    }

    @Test
    void aLeaseTakenWithAHolder_keepsIt_theStoreGivesItsOwnOnlyToATakeWithout() {
        JCacheStore store = store(0, JCacheStore.Update.COMPARE_AND_SWAP);
        BucketKey key = new BucketKey("quota:{c.named-" + UUID.randomUUID() + "}:l");
        long named = LeaseHolder.tagOf("named-instance");
        for (int i = 0; i < 5; i++) {
            store.tryConsume(List.of(Take.of(key, FIVE, 1).heldBy(new LeaseHolder(named, Set.of()))));
        }
        // a take naming that instance dead frees its five: the slots recorded the holder given, not the member
        LeaseHolder knowing = new LeaseHolder(tag(0), Set.of(named));
        assertThat(store.tryConsume(List.of(Take.of(key, FIVE, 1).heldBy(knowing))).get(0).remaining())
                .containsExactly(4);
        store.close();
    }

    @Test
    void aRemovedMember_isRememberedAnHour_theLast1000_andNotOnceItJoinsAgainUnderItsUuid() {
        AtomicLong nanos = new AtomicLong(0);
        HazelcastLeaseHolders holders = new HazelcastLeaseHolders(grid.member(0), "remembered", nanos::get);
        UUID gone = UUID.randomUUID();
        UUID back = UUID.randomUUID();
        holders.removed(gone);
        holders.removed(back);
        assertThat(holders.current().deadTags()).containsExactlyInAnyOrder(LeaseHolder.tagOf(gone.toString()),
                LeaseHolder.tagOf(back.toString()));
        assertThat(holders.current().tag()).isEqualTo(tag(0));

        holders.joined(back); // Hazelcast's persistence restarts a member under its UUID
        assertThat(holders.current().deadTags()).containsExactly(LeaseHolder.tagOf(gone.toString()));

        nanos.set(HazelcastLeaseHolders.REMEMBERED.toNanos() - 1);
        assertThat(holders.current().deadTags()).as("a nanosecond before the hour").hasSize(1);
        nanos.set(HazelcastLeaseHolders.REMEMBERED.toNanos());
        assertThat(holders.current().deadTags()).as("forgotten after an hour").isEmpty();

        UUID first = UUID.randomUUID();
        holders.removed(first);
        for (int i = 0; i < HazelcastLeaseHolders.MOST_REMEMBERED; i++) {
            holders.removed(UUID.randomUUID());
        }
        assertThat(holders.current().deadTags()).hasSize(HazelcastLeaseHolders.MOST_REMEMBERED)
                .doesNotContain(LeaseHolder.tagOf(first.toString()));
        holders.close();
    }
}
