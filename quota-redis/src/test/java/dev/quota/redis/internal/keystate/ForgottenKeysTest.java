package dev.quota.redis.internal.keystate;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ForgottenKeysTest {

    @Test
    void noted_isFound_untilRemembered() {
        ForgottenKeys forgotten = new ForgottenKeys(1_000);
        forgotten.add(0x1234_5678_9ABC_DEF0L);

        assertThat(forgotten.contains(0x1234_5678_9ABC_DEF0L)).isTrue();
        forgotten.remove(0x1234_5678_9ABC_DEF0L);
        assertThat(forgotten.contains(0x1234_5678_9ABC_DEF0L)).isFalse();
    }

    @Test
    void nothingForgotten_allocatesNothing() {
        ForgottenKeys forgotten = new ForgottenKeys(1_048_576);

        assertThat(forgotten.isEmpty()).isTrue();
        assertThat(forgotten.contains(42)).isFalse();
        assertThat(forgotten.bytes()).isZero();
        forgotten.add(42);
        assertThat(forgotten.bytes()).as("one long per remembered key").isEqualTo(8L * 1_048_576);
    }

    /**
     * As many keys forgotten as the bound, spread over the buckets as fingerprints are: nearly all
     * are found (a bucket that got more than four loses its first), and of as many keys never
     * noted, about one in 16,000 is taken for forgotten (each a read that was not needed).
     */
    @Test
    void asManyForgottenAsTheBound_nearlyAllFound_andFewFalseAlarms() {
        int bound = 1 << 16;
        ForgottenKeys forgotten = new ForgottenKeys(bound);
        SplittableRandom random = new SplittableRandom(7);
        long[] noted = new long[bound];
        for (int i = 0; i < bound; i++) {
            noted[i] = random.nextLong();
            forgotten.add(noted[i]);
        }
        int found = 0;
        for (long fingerprint : noted) {
            found += forgotten.contains(fingerprint) ? 1 : 0;
        }
        int falseAlarms = 0;
        for (int i = 0; i < bound; i++) {
            falseAlarms += forgotten.contains(random.nextLong()) ? 1 : 0;
        }

        assertThat(found).as("found of %d", bound).isGreaterThan(bound * 98 / 100);
        assertThat(falseAlarms).as("false alarms of %d", bound).isLessThanOrEqualTo(10);
    }

    @Test
    void fullBucket_losesTheTagNotedFirst() {
        ForgottenKeys forgotten = new ForgottenKeys(64);
        long bucket = 5L << 32;
        for (long tag = 1; tag <= 5; tag++) {
            forgotten.add(bucket | tag << 16);
        }

        assertThat(forgotten.contains(bucket | 1L << 16)).isFalse();
        for (long tag = 2; tag <= 5; tag++) {
            assertThat(forgotten.contains(bucket | tag << 16)).as("tag %d", tag).isTrue();
        }
    }
}
