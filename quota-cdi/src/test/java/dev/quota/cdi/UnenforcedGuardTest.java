package dev.quota.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.context.control.RequestContextController;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.container.ContainerRequestContext;
import java.lang.reflect.Proxy;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.Test;

/**
 * A resource method of an application that has quota-cdi but whose Jakarta REST runtime never
 * registered {@link QuotaProviders} is refused 503, not served unlimited; one whose request quota's
 * filters saw runs. In a real CDI container (Weld SE), with the module's extensions.
 */
class UnenforcedGuardTest {

    @Path("/orders")
    @Dependent
    public static class Orders {
        @GET
        public String list() {
            return "orders";
        }

        public String helper() {
            return "not a resource method";
        }
    }

    @Test
    void aResourceMethodWhoseRequestQuotasFiltersDidNotSee_isRefused503() {
        try (SystemProperties ignored = new SystemProperties()) {
            WeldContainer container = CdiWiringTest.weld(Orders.class).initialize();
            RequestContextController requestContext = container.select(RequestContextController.class).get();
            requestContext.activate();
            try {
                Orders orders = container.select(Orders.class).get();

                assertThatThrownBy(orders::list).isInstanceOfSatisfying(WebApplicationException.class, e -> {
                    assertThat(e.getResponse().getStatus()).isEqualTo(503);
                    assertThat(e.getResponse().getMediaType().toString()).isEqualTo("application/problem+json");
                    assertThat((String) e.getResponse().getEntity())
                            .contains("\"type\":\"urn:quota:problem:quota-not-enforced\"");
                });
                assertThat(orders.helper()).as("not a resource method: not checked").isEqualTo("not a resource method");
            } finally {
                requestContext.deactivate();
                container.shutdown();
            }
        }
    }

    @Test
    void aResourceMethodWhoseRequestQuotasFiltersSaw_runs() {
        try (SystemProperties ignored = new SystemProperties()) {
            WeldContainer container = CdiWiringTest.weld(Orders.class).initialize();
            RequestContextController requestContext = container.select(RequestContextController.class).get();
            requestContext.activate();
            try {
                container.select(QuotaRequest.class).get().bind((ContainerRequestContext) Proxy.newProxyInstance(
                        getClass().getClassLoader(), new Class<?>[] {ContainerRequestContext.class},
                        (proxy, method, args) -> null));

                assertThat(container.select(Orders.class).get().list()).isEqualTo("orders");
            } finally {
                requestContext.deactivate();
                container.shutdown();
            }
        }
    }
}
