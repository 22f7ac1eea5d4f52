package dev.quota.redis.internal.keystate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Limit;
import dev.quota.core.Refill;
import dev.quota.core.spi.BucketMath;
import dev.quota.core.spi.BucketSpec;
import io.github.bucket4j.distributed.remote.RemoteBucketState;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class StateTemplatesTest {

    private static final long SECOND = 1_000_000_000L;
    private static final BucketSpec ONE_LIMIT = BucketSpec.of(List.of(
            new Limit("burst", 1_000, Refill.greedy(1_000, Duration.ofHours(1)))), 0);
    private static final BucketSpec PLAN = BucketSpec.of(List.of(
            new Limit("burst", 100, Refill.greedy(50, Duration.ofSeconds(1))),
            new Limit("hourly", 5_000, Refill.interval(5_000, Duration.ofHours(1)))), 0);

    private final StateTemplates templates = new StateTemplates();

    @Test
    void decode_givesBackTheExactBytesEncoded_forEveryLengthAndAnyDifference() {
        SplittableRandom random = new SplittableRandom(19);
        for (int round = 0; round < 20_000; round++) {
            byte[] bytes = new byte[1 + random.nextInt(600)]; // past 64 words too: kept whole
            if (random.nextBoolean()) {
                bytes[random.nextInt(bytes.length)] = (byte) random.nextInt(); // near a template of its length
            } else {
                random.nextBytes(bytes);
            }

            long[] rec = templates.encode(bytes, round, round + SECOND, round * 31);

            assertThat(templates.decode(rec)).isEqualTo(bytes);
            // into a scratch buffer holding a longer state's bytes: the same bytes, at its start
            byte[] scratch = new byte[templates.room(rec) + 64];
            random.nextBytes(scratch);
            assertThat(templates.decode(rec, scratch)).isEqualTo(bytes.length);
            assertThat(Arrays.copyOf(scratch, bytes.length)).isEqualTo(bytes);
            assertThat(rec[StateTemplates.CONFIRMED]).isEqualTo(round);
            assertThat(rec[StateTemplates.EXPIRES]).isEqualTo(round + SECOND);
            assertThat(StateTemplates.check(rec)).isEqualTo(round * 31);
        }
        assertThat(templates.size()).isLessThanOrEqualTo(StateTemplates.MAX_TEMPLATES);
    }

    @Test
    void absentKey_isAHeaderAlone_andDecodesToNoBytes() {
        long[] rec = templates.encode(null, 5, 10, -1);

        assertThat(rec).hasSize(StateTemplates.HEADER);
        assertThat(templates.decode(rec)).isNull();
        assertThat(StateTemplates.check(rec)).isEqualTo(-1);
    }

    @Test
    void oneLimitBuckets_keepFourWordsOfTheirSixteen_twoLimitBucketsEightOfTheirTwentySix() {
        SplittableRandom random = new SplittableRandom(7);
        long start = 1_800_000_000L * SECOND;
        for (int customer = 0; customer < 1_000; customer++) {
            long now = start + random.nextLong(3_600 * SECOND);
            byte[] one = stateAfter(ONE_LIMIT, 1 + random.nextInt(900), now);
            byte[] plan = stateAfter(PLAN, 1 + random.nextInt(90), now);

            long[] oneRec = templates.encode(one, now, now + SECOND, customer);
            long[] planRec = templates.encode(plan, now, now + SECOND, customer);

            assertThat(one).hasSize(123);
            assertThat(oneRec.length - StateTemplates.HEADER).as("words kept of a one-limit state").isLessThanOrEqualTo(4);
            assertThat(plan).hasSize(202);
            assertThat(planRec.length - StateTemplates.HEADER).as("words kept of a plan state").isLessThanOrEqualTo(8);
            assertThat(templates.decode(oneRec)).isEqualTo(one);
            assertThat(templates.decode(planRec)).isEqualTo(plan);
        }
        assertThat(templates.size()).as("one template per bucket shape").isEqualTo(2);
    }

    @Test
    void recycledRecord_isWrittenOverWhole_byTheNextRecordOfItsLengthOnly() {
        byte[] template = new byte[123];
        new SplittableRandom(23).nextBytes(template);
        templates.encode(template, 0, SECOND, 0); // the first of its length: the template
        long[] given = templates.encode(differing(template, 0, 40), 1, SECOND, 1);
        assertThat(given).hasSize(StateTemplates.HEADER + 2);

        templates.recycle(given);
        byte[] threeWords = differing(template, 0, 8, 40);
        long[] longer = templates.encode(threeWords, 2, 2 * SECOND, 2);
        byte[] twoWords = differing(template, 8, 100);
        long[] reused = templates.encode(twoWords, 3, 3 * SECOND, 3);

        assertThat(longer).isNotSameAs(given);
        assertThat(templates.decode(longer)).isEqualTo(threeWords);
        assertThat(reused).isSameAs(given);
        assertThat(templates.decode(reused)).isEqualTo(twoWords);
        assertThat(reused[StateTemplates.CONFIRMED]).isEqualTo(3);
        assertThat(reused[StateTemplates.EXPIRES]).isEqualTo(3 * SECOND);
        assertThat(StateTemplates.check(reused)).isEqualTo(3);
    }

    /** {@code bytes} with one bit flipped at each of {@code at}. */
    private static byte[] differing(byte[] bytes, int... at) {
        byte[] copy = bytes.clone();
        for (int i : at) {
            copy[i] ^= 1;
        }
        return copy;
    }

    /** The stored bytes of a bucket of {@code spec} after {@code requests} one-token takes at {@code now}. */
    private static byte[] stateAfter(BucketSpec spec, int requests, long now) {
        RemoteBucketState state = null;
        for (int i = 0; i < requests; i++) {
            state = BucketMath.consume(state, spec, 1, now).after();
        }
        return BucketMath.serialize(state);
    }
}
