package dev.quota.core.spi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Limit;
import dev.quota.core.Refill;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ChargeRuleTest {

    private static final BucketSpec SPEC = new BucketSpec(List.of(new Limit("hourly", 20,
            Refill.greedy(20, Duration.ofHours(1)))), 1);

    @Test
    void takenAlone_isWhatTakenGivesAConsumeOfThatOneTake_inEveryCase() {
        BucketKey key = new BucketKey("charge-rule-test");
        int cases = 0;
        for (boolean shadow : new boolean[] {false, true}) {
            for (long refusal : new long[] {0, 1, 10}) {
                if (shadow && refusal > 0) {
                    continue; // not a take: a shadow take is never charged on refusal
                }
                Take take = new Take(key, SPEC, 10, refusal, shadow);
                for (boolean has : new boolean[] {false, true}) {
                    for (boolean hasRefusal : new boolean[] {false, true}) {
                        long[] taken = ChargeRule.taken(List.of(take), i -> has, i -> hasRefusal);
                        assertThat(ChargeRule.takenAlone(take, has, hasRefusal))
                                .as("shadow %s, refusal tokens %d, has %s, has refusal tokens %s",
                                        shadow, refusal, has, hasRefusal)
                                .isEqualTo(taken[0]);
                        cases++;
                    }
                }
            }
        }
        assertThat(cases).isEqualTo(16);
    }

    @Test
    void takenAlone_takesTheRefusalTokensOfARefusedPlanTake_andNothingWhenItLacksThem() {
        Take plan = new Take(new BucketKey("plan"), SPEC, 10, 1);

        assertThat(ChargeRule.takenAlone(plan, true, true)).isEqualTo(10);
        assertThat(ChargeRule.takenAlone(plan, false, true)).isEqualTo(1);
        assertThat(ChargeRule.takenAlone(plan, false, false)).isZero();
    }
}
