package dev.quota.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class SuggestionsTest {

    private static final List<String> SETTINGS = List.of("quota.plans", "quota.store", "quota.caller");

    @Test
    void closest_twoEditsAway_isSuggested() {
        assertThat(Suggestions.closest("quota.stroe", SETTINGS)).isEqualTo("quota.store");
    }

    @Test
    void closest_ignoresCase_andPrefersTheNearer() {
        assertThat(Suggestions.closest("QUOTA.PLAN", SETTINGS)).isEqualTo("quota.plans");
        assertThat(Suggestions.closest("window", List.of("windows", "window_"))).isEqualTo("windows");
    }

    @Test
    void closest_threeEditsAway_suggestsNothing() {
        assertThat(Suggestions.closest("quota.sorted", SETTINGS)).isNull();
        assertThat(Suggestions.closest("q", SETTINGS)).isNull();
    }

    @Test
    void distance_isLevenshtein() {
        assertThat(Suggestions.distance("kitten", "sitting")).isEqualTo(3);
        assertThat(Suggestions.distance("", "ab")).isEqualTo(2);
        assertThat(Suggestions.distance("same", "same")).isZero();
    }
}
