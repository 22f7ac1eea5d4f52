package dev.quota.core.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LimitsParserTest {

    @ParameterizedTest
    @CsvSource({"500ms, PT0.5S", "1s, PT1S", "15m, PT15M", "2h, PT2H", "7d, PT168H", "' 90s ', PT1M30S"})
    void period_numberAndUnit_isADuration(String text, Duration expected) {
        var problems = new ConfigProblems();

        assertThat(LimitsParser.period(text, "p", problems)).isEqualTo(expected);
        assertThat(problems.errors()).isEmpty();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "5mins  | p: unknown unit \"mins\" (use ms, s, m, h, d)",
        "10     | p: missing unit in \"10\" (use ms, s, m, h, d)",
        "0s     | p: must be > 0 but was \"0s\"",
        "1.5h   | p: must be a number and a unit like 15m (units ms, s, m, h, d) but was \"1.5h\"",
        "-1s    | p: must be a number and a unit like 15m (units ms, s, m, h, d) but was \"-1s\"",
        "999999999999999999d | p: is too long: \"999999999999999999d\""})
    void period_malformed_isAnErrorEchoingTheValue(String text, String expected) {
        var problems = new ConfigProblems();

        assertThat(LimitsParser.period(text, "p", problems)).isNull();
        assertThat(problems.errors()).map(ConfigError::toString).containsExactly(expected);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "{name: b, capacity: 5, refill: calendar}            | l[0]: missing required key \"window\"",
        "{name: b, capacity: 5, refill: interval}            | l[0]: missing required key \"period\"",
        "{name: B, capacity: 5, period: 1s}                  | l[0].name: must match [a-z0-9][a-z0-9_-]{0,62} but was \"B\"",
        "{name: b, capacity: 5, period: 1s, refill: hourly}  | l[0].refill: must be one of greedy, interval, calendar but was \"hourly\"",
        "{name: b, capacity: 5, period: 1s, tokens: 0}       | l[0].tokens: must be >= 1 but was 0",
        "{name: b, capacity: 5, period: 1s, zone: UTC}       | l[0].zone: only allowed with refill calendar, not greedy",
        "{name: b, capacity: 5, period: 1s, Period: 2s}      | l[0]: unknown key \"Period\" (did you mean \"period\"?)"})
    void parse_invalidLimit_reportsThePathAndRefusesTheList(String limit, String expected) {
        var problems = new ConfigProblems();
        Object tree = YamlTree.read("l: [" + limit + "]", problems);

        assertThat(LimitsParser.parse(((java.util.Map<?, ?>) tree).get("l"), "l", true, problems)).isNull();
        assertThat(problems.errors()).map(ConfigError::toString).containsExactly(expected);
    }
}
