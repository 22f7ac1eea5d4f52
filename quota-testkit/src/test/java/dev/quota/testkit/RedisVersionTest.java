package dev.quota.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RedisVersionTest {

    @Test
    void parse_redis62Output() {
        RedisVersion version = RedisVersion.parse(
                "Redis server v=6.2.11 sha=00000000:0 malloc=jemalloc-5.1.0 bits=64 build=f5b1f28871c566b4\n");

        assertThat(version).isEqualTo(new RedisVersion(6, 2, 11));
        assertThat(version.isAtLeast(7, 0)).isFalse();
        assertThat(version.isAtLeast(6, 2)).isTrue();
    }

    @Test
    void parse_redis7Output() {
        RedisVersion version = RedisVersion.parse(
                "Redis server v=7.0.15 sha=00000000:0 malloc=jemalloc-5.3.0 bits=64 build=ae4d7c971a948f0\n");

        assertThat(version).isEqualTo(new RedisVersion(7, 0, 15));
        assertThat(version.isAtLeast(7, 0)).isTrue();
        assertThat(version.isAtLeast(7, 2)).isFalse();
        assertThat(version).hasToString("7.0.15");
    }

    @Test
    void parse_windowsFourPartVersion_andValkey_andMissingPatch() {
        assertThat(RedisVersion.parse("Redis server v=5.0.14.1 sha=ec77f72d:0 malloc=jemalloc-5.2.1-redis bits=64"))
                .isEqualTo(new RedisVersion(5, 0, 14));
        assertThat(RedisVersion.parse("Valkey server v=8.0.1 sha=00000000:0 malloc=jemalloc-5.3.0 bits=64"))
                .isEqualTo(new RedisVersion(8, 0, 1));
        assertThat(RedisVersion.parse("Redis server v=7.4 bits=64")).isEqualTo(new RedisVersion(7, 4, 0));
    }

    @Test
    void parse_withoutVersion_throwsEchoingTheOutput() {
        assertThatThrownBy(() -> RedisVersion.parse("redis-check-rdb 7.0.15\n"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("\"redis-check-rdb 7.0.15\"");
        assertThatThrownBy(() -> RedisVersion.parse("Redis server sha=00000000:0 build=v=7"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void compareTo_ordersNumericallyNotAsText() {
        assertThat(new RedisVersion(7, 0, 15)).isGreaterThan(new RedisVersion(7, 0, 9))
                .isGreaterThan(new RedisVersion(6, 2, 14))
                .isLessThan(new RedisVersion(7, 2, 0))
                .isLessThan(new RedisVersion(10, 0, 0));
        assertThat(new RedisVersion(6, 10, 0).isAtLeast(6, 2)).isTrue();
    }

    @Test
    void constructor_rejectsNegativeNumbers() {
        assertThatThrownBy(() -> new RedisVersion(7, -1, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("version numbers must be >= 0 but were 7.-1.0");
    }
}
