package dev.quota.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import org.junit.jupiter.api.Test;

class PathTemplatesTest {

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
                .isEqualTo("/api/v1/accounts/{id: [0-9]+}/export");
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
