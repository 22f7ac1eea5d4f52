package dev.quota.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quota.core.QuotaService;
import dev.quota.core.store.InMemoryStore;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Configuration;
import jakarta.ws.rs.core.FeatureContext;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A runtime that drops what {@link QuotaFeature} registers, or that tells its filter no resource
 * method, never serves a request uncounted: start-up fails, or the request is answered 503.
 */
class UnenforcedWiringTest {

    private final QuotaService service = QuotaService.builder().store(InMemoryStore.builder().build())
            .config(TestConfig.standard().build()).build();

    @Test
    void aRuntimeThatDropsTheQuotaFilter_failsStartUp_namingWhatItDropped() {
        FeatureContext dropping = featureContext(new ArrayList<>(), provider -> !(provider instanceof QuotaRequestFilter));

        assertThatThrownBy(() -> QuotaFeature.builder(service).clientAddress(request -> "203.0.113.7").build()
                .configure(dropping))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("did not register QuotaRequestFilter, which QuotaFeature registered; its requests"
                        + " would not be counted, so the application does not start");
    }

    @Test
    void aRuntimeWhoseConfigurationListsNothingAFeatureRegistered_asQuarkusRest_starts() {
        // Quarkus REST takes every filter, interceptor and mapper but lists none in its configuration
        List<Object> taken = new ArrayList<>();
        FeatureContext unlisted = featureContext(new ArrayList<>(), provider -> false);
        FeatureContext recording = (FeatureContext) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {FeatureContext.class}, (proxy, method, args) -> {
                    if (method.getName().equals("register") && !(args[0] instanceof Class<?>)) {
                        taken.add(args[0]);
                    }
                    return method.getName().equals("getConfiguration") ? unlisted.getConfiguration() : proxy;
                });

        QuotaFeature.builder(service).clientAddress(request -> "203.0.113.7").build().configure(recording);

        assertThat(taken).hasSize(9);
    }

    @Test
    void aRuntimeThatKeepsEverything_registersFiltersInterceptorAndMapperOnly_besidesTheStartUpCheck() {
        List<Object> registered = new ArrayList<>();
        QuotaFeature.builder(service).clientAddress(request -> "203.0.113.7").build()
                .configure(featureContext(registered, provider -> true));

        assertThat(registered).extracting(provider -> provider.getClass().getSimpleName())
                .containsExactly("QuotaRequestFilter", "QuotaResponseFilter", "RuntimeRefusalFilter", "AmountInterceptor",
                        "QuotaExceededMapper", "EndOfResponse", "ClientWriteFailures", "ClientReadFailures", "QuotaBindings");
    }

    @Test
    void aRequestWhoseResourceMethodTheRuntimeDoesNotTell_isAnswered503_notLetThrough() {
        QuotaRequestFilter filter = new QuotaRequestFilter(service, CallerResolver.apiKey(), request -> "203.0.113.7",
                new QuotaBindings(service));
        Map<String, Object> aborted = new HashMap<>();

        filter.filter(request(aborted));

        assertThat(aborted).containsKey("response");
        Response response = (Response) aborted.get("response");
        assertThat(response.getStatus()).isEqualTo(503);
        assertThat(response.getMediaType().toString()).startsWith("application/problem+json");
    }

    /** A feature context that keeps what {@code keeps} accepts and answers isRegistered truthfully. */
    private static FeatureContext featureContext(List<Object> registered, java.util.function.Predicate<Object> keeps) {
        Configuration configuration = (Configuration) Proxy.newProxyInstance(UnenforcedWiringTest.class.getClassLoader(),
                new Class<?>[] {Configuration.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "isRegistered" -> registered.contains(args[0]);
                    case "getClasses", "getInstances" -> java.util.Set.of();
                    default -> null;
                });
        return (FeatureContext) Proxy.newProxyInstance(UnenforcedWiringTest.class.getClassLoader(),
                new Class<?>[] {FeatureContext.class}, (proxy, method, args) -> {
                    if (method.getName().equals("getConfiguration")) {
                        return configuration;
                    }
                    if (method.getName().equals("register") && !(args[0] instanceof Class<?>) && keeps.test(args[0])) {
                        registered.add(args[0]);
                    }
                    return proxy;
                });
    }

    /** A GET request whose runtime tells nothing about the matched method; {@code abortWith} is recorded. */
    private static ContainerRequestContext request(Map<String, Object> aborted) {
        UriInfo uriInfo = (UriInfo) Proxy.newProxyInstance(UnenforcedWiringTest.class.getClassLoader(),
                new Class<?>[] {UriInfo.class}, (proxy, method, args) ->
                        method.getName().equals("getRequestUri") ? URI.create("http://127.0.0.1/api/v1/accounts") : null);
        return (ContainerRequestContext) Proxy.newProxyInstance(UnenforcedWiringTest.class.getClassLoader(),
                new Class<?>[] {ContainerRequestContext.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "getMethod" -> "GET";
                    case "getUriInfo" -> uriInfo;
                    case "abortWith" -> aborted.put("response", args[0]);
                    default -> null;
                });
    }
}
