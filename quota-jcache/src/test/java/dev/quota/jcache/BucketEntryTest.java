package dev.quota.jcache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quota.core.Limit;
import dev.quota.core.Refill;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketMath;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.Take;
import io.github.bucket4j.distributed.remote.RemoteBucketState;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which entry a bucket lives in, and the entry's stored form. */
class BucketEntryTest {

    private static final BucketSpec TEN_PER_MINUTE = BucketSpec.of(
            List.of(new Limit("burst", 10, Refill.greedy(10, Duration.ofMinutes(1)))), 1);
    private static final long NOW = Duration.ofDays(20_000).toNanos();

    @Test
    void aCustomersBuckets_shareTheEntryOfTheirBracedPart() {
        assertThat(BucketEntry.entryKey("quota:{c.abc}:p")).isEqualTo("quota:{c.abc}");
        assertThat(BucketEntry.field("quota:{c.abc}:p")).isEqualTo(":p");
        assertThat(BucketEntry.entryKey("quota:{c.abc}:p:daily:1764374400")).isEqualTo("quota:{c.abc}");
        assertThat(BucketEntry.entryKey("quota:{s.export}")).isEqualTo("quota:{s.export}");
        assertThat(BucketEntry.field("quota:{s.export}")).isEmpty();
        assertThat(BucketEntry.entryKey("quota-test:plain")).isEqualTo("quota-test:plain");
        assertThat(BucketEntry.entryKey("quota:{unclosed:p")).isEqualTo("quota:{unclosed:p");
    }

    @Test
    void groups_putTheTakesOfOneEntryTogether_inOrderOfFirstAppearance() {
        List<Take> takes = List.of(take("quota:{c.a}:p"), take("quota:{s.export}"), take("quota:{c.a}:r:export"));

        assertThat(BucketEntry.groups(takes)).containsExactly(new int[] {0, 2}, new int[] {1});
    }

    @Test
    void anEntry_readsBackTheStatesItWasWrittenWith() {
        RemoteBucketState plan = BucketMath.consume(null, TEN_PER_MINUTE, 3, NOW).after();
        RemoteBucketState rule = BucketMath.consume(null, TEN_PER_MINUTE, 7, NOW).after();

        BucketEntry read = BucketEntry.decode(BucketEntry.EMPTY.with(":p", plan).with(":r:x", rule).encode());

        assertThat(BucketMath.peek(read.get(":p"), TEN_PER_MINUTE, NOW).remaining()).containsExactly(7);
        assertThat(BucketMath.peek(read.get(":r:x"), TEN_PER_MINUTE, NOW).remaining()).containsExactly(3);
        assertThat(read.get(":other")).isNull();
        assertThat(read.nanosToFull(NOW)).isEqualTo(Duration.ofSeconds(42).toNanos());
        assertThat(read.fromEmptyNanos()).isEqualTo(Duration.ofMinutes(1).toNanos());
    }

    @Test
    void bucketsFullAgain_areLeftOutOfTheEntry() {
        RemoteBucketState quick = BucketMath.consume(null, TEN_PER_MINUTE, 1, NOW).after();
        RemoteBucketState slow = BucketMath.consume(null, TEN_PER_MINUTE, 10, NOW).after();
        BucketEntry entry = BucketEntry.EMPTY.with(":quick", quick).with(":slow", slow);

        BucketEntry sixSecondsOn = entry.withoutFull(NOW + Duration.ofSeconds(6).toNanos());

        assertThat(sixSecondsOn.get(":quick")).isNull();
        assertThat(sixSecondsOn.get(":slow")).isNotNull();
        assertThat(sixSecondsOn.withoutFull(NOW + Duration.ofMinutes(1).toNanos()).isEmpty()).isTrue();
    }

    @Test
    void bytesThatAreNoEntry_failToDecode() {
        byte[] good = BucketEntry.EMPTY.with(":p", BucketMath.consume(null, TEN_PER_MINUTE, 1, NOW).after()).encode();

        assertThatThrownBy(() -> BucketEntry.decode("not a bucket".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> BucketEntry.decode(Arrays.copyOf(good, good.length - 1)))
                .isInstanceOf(RuntimeException.class);
        assertThatThrownBy(() -> BucketEntry.decode(BucketMath.serialize(
                BucketMath.consume(null, TEN_PER_MINUTE, 1, NOW).after()))).as("a bare bucket state")
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static Take take(String key) {
        return Take.of(new BucketKey(key), TEN_PER_MINUTE, 1);
    }
}
