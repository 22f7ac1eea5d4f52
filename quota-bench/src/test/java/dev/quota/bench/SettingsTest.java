package dev.quota.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class SettingsTest {

    @Test
    void redisRtt_defaultsToDirectAndHalfAMillisecond() {
        assertThat(Settings.parse(new String[0]).rtts()).containsExactly(Duration.ZERO, Duration.ofNanos(500_000));
    }

    @Test
    void redisRtt_takesAListInMillisecondsOrMicroseconds() {
        Settings s = Settings.parse(new String[] {"--redis-rtt", "0,0.5ms,250us,2"});

        assertThat(s.rtts()).containsExactly(Duration.ZERO, Duration.ofNanos(500_000), Duration.ofNanos(250_000),
                Duration.ofMillis(2));
    }

    @Test
    void redisRtt_refusesWhatIsNotARoundTrip() {
        assertThatThrownBy(() -> Settings.parse(new String[] {"--redis-rtt", "fast"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("\"fast\"");
        assertThatThrownBy(() -> Settings.parse(new String[] {"--redis-rtt", "-1ms"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1ms");
    }

    @Test
    void chart_isTheDocsOnlyForAFullRun() {
        assertThat(Settings.parse(new String[0]).chart()).isEqualTo(Path.of("docs", "benchmarks.png"));
        assertThat(Settings.parse(new String[] {"--scenarios", "hot8"}).chart())
                .isEqualTo(Path.of("quota-bench", "target", "benchmarks-part.png"));
        assertThat(Settings.parse(new String[] {"--limiters", "quota,lua"}).chart())
                .isEqualTo(Path.of("quota-bench", "target", "benchmarks-part.png"));
        assertThat(Settings.parse(new String[] {"--quick"}).chart())
                .isEqualTo(Path.of("quota-bench", "target", "benchmarks-quick.png"));
    }

    @Test
    void scenarios_refusesAnUnknownName() {
        assertThatThrownBy(() -> Settings.parse(new String[] {"--scenarios", "many,transfers"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("transfers");
    }

    @Test
    void transferParts_defaultToAllAndTakeAList() {
        assertThat(Settings.parse(new String[0]).transferParts()).containsExactlyInAnyOrder("peak", "paced",
                "exactness");
        assertThat(Settings.parse(new String[] {"--transfer-parts", "peak"}).transferParts()).containsExactly("peak");
    }

    @Test
    void transferParts_refusePacedWithoutPeakAndUnknownNames() {
        assertThatThrownBy(() -> Settings.parse(new String[] {"--transfer-parts", "paced"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("add peak");
        assertThatThrownBy(() -> Settings.parse(new String[] {"--transfer-parts", "peak,exact"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("exact");
    }

    @Test
    void profile_isOffUnlessADirectoryIsGiven() {
        assertThat(Settings.parse(new String[0]).profile()).isNull();
        assertThat(Settings.parse(new String[] {"--profile", "target/jfr"}).profile()).isEqualTo(Path.of("target/jfr"));
    }

    @Test
    void instances_default8_setByTheOption_andBelow2Refused() {
        assertThat(Settings.parse(new String[0]).instances()).isEqualTo(8);
        assertThat(Settings.parse(new String[] {"--instances", "32"}).instances()).isEqualTo(32);
        assertThatThrownBy(() -> Settings.parse(new String[] {"--instances", "1"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--instances must be >= 2");
    }
}
