package dev.quota.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import org.junit.jupiter.api.Test;

class PathTemplatesTest {

    @Test
    void normalize_addsLeadingSlash_dropsTrailingSlash_collapsesDoubleSlashes() {
        assertThat(PathTemplates.normalize("api/v1//accounts/")).isEqualTo("/api/v1/accounts");
        assertThat(PathTemplates.normalize("")).isEqualTo("/");
        assertThat(PathTemplates.normalize("//")).isEqualTo("/");
    }

    @Test
    void normalize_dropsParameterRegexes_evenWithNestedBraces() {
        assertThat(PathTemplates.normalize("/accounts/{id: [0-9]+}/export")).isEqualTo("/accounts/{id}/export");
        assertThat(PathTemplates.normalize("/a/{ id : [0-9]{1,9} }/b")).isEqualTo("/a/{id}/b");
        assertThat(PathTemplates.normalize("/a/{x: \\}}/b")).isEqualTo("/a/{x}/b");
    }

    @Test
    void normalize_keepsAnUnbalancedBraceAsWritten() {
        assertThat(PathTemplates.normalize("/a/{id")).isEqualTo("/a/{id");
    }

    @Test
    void shape_dropsParameterNames() {
        assertThat(PathTemplates.shape("accounts/{accountId: \\d+}/export/")).isEqualTo("/accounts/{}/export");
    }

    @Test
    void parseMatch_readsMethodAndPath_methodCaseInsensitive() {
        PathTemplates.Match match = PathTemplates.parseMatch("  post   /api/v1/transfers/ ");

        assertThat(match.matches("POST", "/api/v1/transfers")).isTrue();
        assertThat(match.matches("GET", "/api/v1/transfers")).isFalse();
        assertThat(match.matches("POST", "/api/v1/transfers/{}")).isFalse();
    }

    @Test
    void parseMatch_withoutMethod_matchesEveryMethod() {
        PathTemplates.Match match = PathTemplates.parseMatch("/api/v1/accounts/{id}");

        assertThat(match.matches("DELETE", "/api/v1/accounts/{}")).isTrue();
    }

    @Path("/api/v1/accounts/")
    static class Annotated {
        @GET
        @Path("{id: [0-9]+}/export/")
        public String export() {
            return "";
        }

        @POST
        public String create() {
            return "";
        }
    }

    @Path("/api/v1/cards")
    interface CardsApi {
        @GET
        @Path("{id}")
        String card();
    }

    static final class CardsImpl implements CardsApi {
        @Override
        public String card() {
            return "";
        }
    }

    @Test
    void template_joinsClassAndMethodPaths() throws Exception {
        assertThat(PathTemplates.template(Annotated.class, Annotated.class.getMethod("export")))
                .isEqualTo("/api/v1/accounts/{id}/export");
        assertThat(PathTemplates.template(Annotated.class, Annotated.class.getMethod("create")))
                .isEqualTo("/api/v1/accounts");
    }

    @Test
    void template_andHttpMethod_areFoundOnAnAnnotatedInterface() throws Exception {
        assertThat(PathTemplates.template(CardsImpl.class, CardsImpl.class.getMethod("card")))
                .isEqualTo("/api/v1/cards/{id}");
        assertThat(ResourceAnnotations.httpMethod(CardsImpl.class, CardsImpl.class.getMethod("card"))).isEqualTo("GET");
    }
}
