package dev.quota.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.QuotaDecision;
import dev.quota.core.QuotaService;
import dev.quota.core.store.InMemoryStore;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.core.MultivaluedHashMap;
import jakarta.ws.rs.core.MultivaluedMap;
import java.lang.reflect.Proxy;
import java.net.http.HttpResponse;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Each resource method's {@link QuotaBinding} is worked out when the application starts and handed
 * to the quota filter with every request ({@link MethodBinding}), so that a request does not ask the
 * runtime which method it matched; where nothing handed it on, the filter still asks.
 */
class MethodBindingTest {

    @Test
    void eachResourceMethod_handsTheQuotaFilterItsOwnBinding() {
        List<Object> seen = new CopyOnWriteArrayList<>();
        try (Fixture fixture = Fixture.with(TestConfig.standard().rule(RuleBindingTest.EXPORT))
                .application(app -> app.register(new BindingSeen(seen))).start()) {
            assertThat(get(fixture, "/api/v1/accounts/1").statusCode()).isEqualTo(200);
            assertThat(get(fixture, "/api/v1/accounts/1/export").statusCode()).isEqualTo(200);
            assertThat(get(fixture, "/api/v1/accounts/ping").statusCode()).isEqualTo(200);
        }

        assertThat(seen).hasSize(3).allMatch(QuotaBinding.class::isInstance);
        EndpointRule account = ((QuotaBinding) seen.get(0)).endpoint();
        EndpointRule export = ((QuotaBinding) seen.get(1)).endpoint();
        assertThat(account).isNotNull();
        assertThat(account.describe()).isEqualTo("GET /api/v1/accounts/{id: [0-9]+}");
        assertThat(account.annotated()).isNull();
        assertThat(export).isNotNull();
        assertThat(export.annotated()).isEqualTo("export");
        assertThat(seen.get(2)).isSameAs(QuotaBinding.UNLIMITED);
    }

    @Test
    void aSubResourceALocatorReturns_isCountedOnThePlan() {
        try (Fixture fixture = Fixture.with(TestConfig.standard())
                .application(app -> app.register(Cards.class)).start()) {
            HttpResponse<String> first = get(fixture, "/api/v1/cards/7");
            HttpResponse<String> second = get(fixture, "/api/v1/cards/7");

            assertThat(first.statusCode()).isEqualTo(200);
            assertThat(first.headers().firstValue("RateLimit")).hasValue("\"free-burst\";r=19;t=1");
            assertThat(second.headers().firstValue("RateLimit")).hasValue("\"free-burst\";r=18;t=1");
        }
    }

    @Test
    void aRequestCarryingItsBinding_isDecided_withoutAskingTheRuntimeForItsMethod() throws Exception {
        try (QuotaService service = QuotaService.builder().store(InMemoryStore.builder().build())
                .config(TestConfig.standard().build()).build()) {
            QuotaRequestFilter filter = new QuotaRequestFilter(service, CallerResolver.apiKey(),
                    request -> "203.0.113.7", new QuotaBindings(service));
            Map<String, Object> properties = new HashMap<>();
            properties.put(MethodBinding.PROPERTY, QuotaBinding.of(TestResources.Accounts.class,
                    TestResources.Accounts.class.getMethod("account", String.class), service));
            Map<String, Object> aborted = new HashMap<>();

            // the filter was given no ResourceInfo, and the request tells no method: only the property does
            filter.filter(request(properties, aborted));

            assertThat(aborted).isEmpty();
            assertThat(properties.get(QuotaFeature.DECISION)).isInstanceOfSatisfying(QuotaDecision.class,
                    decision -> assertThat(decision.outcome()).isEqualTo(QuotaDecision.Outcome.ALLOWED));
        }
    }

    private static HttpResponse<String> get(Fixture fixture, String path) {
        return fixture.server.get(path, "X-API-Key", TestConfig.ACME_KEY);
    }

    /** A GET request with the test key whose properties live in {@code properties}; {@code abortWith} is recorded. */
    private static ContainerRequestContext request(Map<String, Object> properties, Map<String, Object> aborted) {
        MultivaluedMap<String, String> headers = new MultivaluedHashMap<>();
        headers.putSingle("X-API-Key", TestConfig.ACME_KEY);
        return (ContainerRequestContext) Proxy.newProxyInstance(MethodBindingTest.class.getClassLoader(),
                new Class<?>[] {ContainerRequestContext.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "getMethod" -> "GET";
                    case "getHeaders" -> headers;
                    case "getHeaderString" -> headers.getFirst((String) args[0]);
                    case "getProperty" -> properties.get((String) args[0]);
                    case "setProperty" -> properties.put((String) args[0], args[1]);
                    case "hasEntity" -> false;
                    case "abortWith" -> aborted.put("response", args[0]);
                    default -> null;
                });
    }

    /** Records the binding each request was handed, once its response is on its way. */
    static final class BindingSeen implements ContainerResponseFilter {
        private final List<Object> seen;

        BindingSeen(List<Object> seen) {
            this.seen = seen;
        }

        @Override
        public void filter(ContainerRequestContext request, ContainerResponseContext response) {
            Object binding = request.getProperty(MethodBinding.PROPERTY);
            seen.add(binding == null ? "none" : binding);
        }
    }

    /** A sub-resource locator: the resource that answers is made per request, its method bound by no start-up. */
    @Path("/api/v1/cards")
    public static final class Cards {

        @Path("{id}")
        public Card card(@PathParam("id") String id) {
            return new Card(id);
        }
    }

    /** What the locator returns. */
    public static final class Card {
        private final String id;

        Card(String id) {
            this.id = id;
        }

        @GET
        public String get() {
            return "card " + id;
        }
    }
}
