package dev.quota.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ProblemsTest {

    @Test
    void json_escapesQuotesBackslashesAndControlCharacters() {
        String json = new Problems.Json(16)
                .string("a", "say \"hi\" \\ there")
                .string("b", "line\nbreak\ttab\u0001bell\u2028")
                .number("n", -3)
                .end();

        assertThat(json).isEqualTo("{\"a\":\"say \\\"hi\\\" \\\\ there\","
                + "\"b\":\"line\\nbreak\\ttab\\u0001bell\\u2028\",\"n\":-3}");
    }

    @Test
    void json_skipsAbsentOptionalStrings() {
        assertThat(new Problems.Json(16).optionalString("instance", null).number("status", 429).end())
                .isEqualTo("{\"status\":429}");
    }

    @Test
    void apiKeyShape_acceptsVisibleAsciiUpTo256Characters() {
        assertThat(ApiKeyResolver.wellFormed("k".repeat(256))).isTrue();
        assertThat(ApiKeyResolver.wellFormed("!~09AZaz")).isTrue();
        assertThat(ApiKeyResolver.wellFormed("k".repeat(257))).isFalse();
        assertThat(ApiKeyResolver.wellFormed("a b")).isFalse();
        assertThat(ApiKeyResolver.wellFormed("a\u007fb")).isFalse();
        assertThat(ApiKeyResolver.wellFormed("caf\u00e9")).isFalse();
    }
}
