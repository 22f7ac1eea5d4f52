package dev.quota.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The one grammar of a rule's {@code match} entries, and the shape resource templates are compared in. */
class RouteMatchTest {

    @Test
    void shapeOf_addsLeadingSlash_dropsTrailingSlash_collapsesDoubleSlashes() {
        assertThat(RouteMatch.shapeOf("api/v1//accounts/")).isEqualTo("/api/v1/accounts");
        assertThat(RouteMatch.shapeOf("")).isEqualTo("/");
        assertThat(RouteMatch.shapeOf("//")).isEqualTo("/");
    }

    @Test
    void shapeOf_dropsParameterNamesAndRegexes_evenWithNestedOrEscapedBraces() {
        assertThat(RouteMatch.shapeOf("accounts/{accountId: \\d+}/export/")).isEqualTo("/accounts/{}/export");
        assertThat(RouteMatch.shapeOf("/a/{ id : [0-9]{1,9} }/b")).isEqualTo("/a/{}/b");
        assertThat(RouteMatch.shapeOf("/a/{x: \\}}/b")).isEqualTo("/a/{}/b");
    }

    @Test
    void shapeOf_keepsAnUnbalancedBraceAsWritten() {
        assertThat(RouteMatch.shapeOf("/a/{id")).isEqualTo("/a/{id");
    }

    @Test
    void parse_readsMethodAndPath_matchingTheResourceTemplatesShape() {
        RouteMatch match = RouteMatch.parse("POST /api/v1/transfers/{id}");

        assertThat(match).isEqualTo(new RouteMatch("POST", "/api/v1/transfers/{}"));
        assertThat(match.matches("POST", RouteMatch.shapeOf("/api/v1/transfers/{transferId: [0-9]+}"))).isTrue();
        assertThat(match.matches("post", "/api/v1/transfers/{}")).isTrue();
        assertThat(match.matches("GET", "/api/v1/transfers/{}")).isFalse();
        assertThat(match.matches("POST", "/api/v1/transfers")).isFalse();
    }

    @Test
    void parse_refusesAnythingButOneMethodAndOnePath_withTheValueInTheMessage() {
        assertThatThrownBy(() -> RouteMatch.parse("/api/v1/transfers"))
                .hasMessage("must be \"METHOD /path\" with METHOD one of GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS"
                        + " but was \"/api/v1/transfers\"");
        assertThatThrownBy(() -> RouteMatch.parse("post /a")).hasMessageContaining("but was \"post /a\"");
        assertThatThrownBy(() -> RouteMatch.parse("GET  /a")).hasMessage(
                "path must start with / and may use {name} templates but was \" /a\"");
        assertThatThrownBy(() -> RouteMatch.parse("GET /a/{id: [0-9]+}"))
                .hasMessageContaining("may use {name} templates");
    }
}
