package dev.quota.jcache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quota.testkit.Await;
import java.time.Duration;
import java.util.function.IntSupplier;
import javax.cache.Cache;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The member count the {@code local} failure policy divides limits by, and each member's rank. */
class GridMembersTest {

    @RegisterExtension
    static HazelcastGrid grid = HazelcastGrid.members(2);

    @Test
    void members_followTheGrid_andThrowOnceTheMemberIsGone() {
        Cache<String, byte[]> cache = grid.cache(0, "members");
        IntSupplier members = JCacheStore.members(cache);
        assertThat(members.getAsInt()).isEqualTo(2);
        assertThat(JCacheStore.rank(cache).getAsInt()).as("the first member").isZero();
        assertThat(JCacheStore.rank(grid.cache(1, "members")).getAsInt()).as("the second member").isEqualTo(1);

        int third = grid.startMember();
        Await.until(Duration.ofSeconds(60), () -> members.getAsInt() == 3, () -> "the third member to be seen");

        grid.terminate(third);
        Await.until(Duration.ofSeconds(60), () -> members.getAsInt() == 2, () -> "the third member to be gone");

        grid.terminate(0);
        IntSupplier survivor = JCacheStore.rank(grid.cache(1, "members"));
        Await.until(Duration.ofSeconds(60), () -> survivor.getAsInt() == 0, () -> "the survivor to be the first member");
        // the service keeps the last count it was given while this throws
        assertThatThrownBy(members::getAsInt).isInstanceOf(RuntimeException.class);
    }
}
