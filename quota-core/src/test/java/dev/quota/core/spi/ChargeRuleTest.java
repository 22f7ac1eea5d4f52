package dev.quota.core.spi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Limit;
import dev.quota.core.Refill;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ChargeRuleTest {

    private static final BucketSpec SPEC = BucketSpec.of(List.of(new Limit("hourly", 20,
            Refill.greedy(20, Duration.ofHours(1)))), 1);

    @Test
    void taken_takesTheRefusalTokensOfARefusedPlanTake_andNothingWhenItLacksThem() {
        Take plan = Take.of(new BucketKey("plan"), SPEC, 10, 1);

        assertThat(ChargeRule.taken(List.of(plan), i -> true, i -> true)).containsExactly(10);
        assertThat(ChargeRule.taken(List.of(plan), i -> false, i -> true)).containsExactly(1);
        assertThat(ChargeRule.taken(List.of(plan), i -> false, i -> false)).containsExactly(0);
    }

    @Test
    void taken_ofAShadowTake_isItsTokensWhenItHasThem_elseNothing() {
        Take shadow = Take.shadow(new BucketKey("shadow"), SPEC, 10);

        assertThat(ChargeRule.taken(List.of(shadow), i -> true, i -> true)).containsExactly(10);
        assertThat(ChargeRule.taken(List.of(shadow), i -> false, i -> true)).containsExactly(0);
    }
}
