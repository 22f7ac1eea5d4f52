package dev.quota.jaxrs.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.QuotaService;
import dev.quota.core.store.InMemoryStore;
import dev.quota.jaxrs.Containers;
import dev.quota.jaxrs.QuotaFeature;
import dev.quota.jaxrs.TestConfig;
import dev.quota.testkit.MutableClock;
import dev.quota.testkit.RawHttp;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.container.ResourceContext;
import jakarta.ws.rs.core.Application;
import jakarta.ws.rs.core.Configuration;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Request;
import jakarta.ws.rs.core.SecurityContext;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.ext.Providers;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.annotation.Annotation;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.glassfish.jersey.server.ResourceConfig;
import org.glassfish.jersey.server.ServerProperties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * How the admin API is wired into an application: its token check is a request filter the
 * {@link QuotaFeature} puts on its methods, its methods take only what every runtime injects, and
 * without the feature nothing is answered but 503.
 */
class AdminWiringTest {

    private static final String TOKEN = "admin-token-0123456789abcdef-GHIJKL";
    private static final String BEARER = "Bearer " + TOKEN;
    /** What a resource method may take with {@code @Context} on every runtime (Jakarta REST 3.1, section 10.1). */
    private static final Set<Class<?>> INJECTED_EVERYWHERE = Set.of(Application.class, UriInfo.class,
            HttpHeaders.class, Request.class, SecurityContext.class, Providers.class, ResourceContext.class,
            Configuration.class);

    private final MutableClock clock = MutableClock.at(TestConfig.NOON);
    private final QuotaService service = QuotaService.builder().store(InMemoryStore.builder().clock(clock).build())
            .config(TestConfig.standard().build()).clock(clock).build();
    private Containers.Running server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        service.close();
    }

    private int start(Containers container, ResourceConfig app) {
        server = container.start(app.property(ServerProperties.WADL_FEATURE_DISABLE, true));
        return server.port();
    }

    private QuotaAdminResource admin() {
        return QuotaAdminResource.builder(service, TOKEN).clock(clock).build();
    }

    /**
     * What broke: the admin methods took {@code @Context ContainerRequestContext}, which RESTEasy
     * does not inject into a resource method (RESTEASY003880), so there every caller was
     * {@code unknown} and one stranger's wrong tokens locked every operator out.
     */
    @Test
    void adminMethods_takeWithContextOnlyWhatEveryRuntimeInjects() {
        List<String> methods = new ArrayList<>();
        for (Method method : QuotaAdminResource.class.getMethods()) {
            if (!isResourceMethod(method)) {
                continue;
            }
            methods.add(method.getName());
            for (Parameter parameter : method.getParameters()) {
                if (parameter.isAnnotationPresent(Context.class)) {
                    assertThat(INJECTED_EVERYWHERE).as("@Context %s of %s", parameter.getType().getName(), method)
                            .contains(parameter.getType());
                }
            }
        }
        assertThat(methods).containsExactlyInAnyOrder("customer", "reset", "config", "topCustomers", "releaseLeases");
    }

    private static boolean isResourceMethod(Method method) {
        for (Annotation annotation : method.getAnnotations()) {
            if (annotation.annotationType().isAnnotationPresent(HttpMethod.class)) {
                return true;
            }
        }
        return false;
    }

    @ParameterizedTest
    @EnumSource(Containers.class)
    void defaultClientAddress_isTheTcpPeer_soWrongTokensAreCountedPerPeer(Containers container) {
        int port = start(container, new ResourceConfig().register(QuotaFeature.builder(service).build())
                .register(admin()));

        for (int i = 1; i <= 5; i++) {
            RawHttp.Answer wrong = RawHttp.get("127.0.0.2", port, "/admin/config", "Authorization", "Bearer wrong-" + i);
            assertThat(wrong.status()).as("wrong token %d", i).isEqualTo(401);
            assertThat(wrong.header("WWW-Authenticate")).isEqualTo("Bearer realm=\"quota-admin\"");
        }
        RawHttp.Answer sixth = RawHttp.get("127.0.0.2", port, "/admin/config", "Authorization", "Bearer wrong-6");
        RawHttp.Answer rightFromThere = RawHttp.get("127.0.0.2", port, "/admin/config", "Authorization", BEARER);
        RawHttp.Answer rightFromElsewhere = RawHttp.get("127.0.0.1", port, "/admin/config", "Authorization", BEARER);

        assertThat(sixth.status()).isEqualTo(429);
        assertThat(sixth.header("Retry-After")).isEqualTo("10");
        assertThat(rightFromThere.status()).as("a blocked address learns nothing").isEqualTo(429);
        assertThat(rightFromElsewhere.status()).isEqualTo(200);
        assertThat(rightFromElsewhere.body()).startsWith("{\"version\":1,");
    }

    @Test
    void withoutAQuotaFeature_everyCallIs503_evenWithTheToken_andTheFixIsLoggedOnce() {
        int port = start(Containers.GRIZZLY, new ResourceConfig().register(admin()));

        String log = capturingStderr(() -> {
            for (String path : List.of("/admin/config", "/admin/customers/acme", "/admin/config")) {
                RawHttp.Answer answer = RawHttp.get("127.0.0.1", port, path, "Authorization", BEARER);
                assertThat(answer.status()).as(path).isEqualTo(503);
                assertThat(answer.header("Content-Type")).isEqualTo("application/problem+json");
                assertThat(answer.body()).isEqualTo("{\"type\":\"urn:quota:problem:admin-check-failed\","
                        + "\"title\":\"Service Unavailable\",\"status\":503,"
                        + "\"detail\":\"The admin token could not be checked.\"}");
            }
        });

        assertThat(log.lines().filter(line -> line.contains("ERROR dev.quota.jaxrs.admin.QuotaAdminResource")))
                .singleElement().asString()
                .contains("admin API: config was called without its token check")
                .contains("register a QuotaFeature in the same application as the QuotaAdminResource");
    }

    @Test
    void admittedCall_runsAsPrincipalQuotaAdmin_authenticatedByBearer() {
        List<String> seen = new ArrayList<>();
        ContainerResponseFilter principal = (ContainerRequestContext request, ContainerResponseContext response) ->
                seen.add(request.getSecurityContext().getUserPrincipal().getName() + " "
                        + request.getSecurityContext().getAuthenticationScheme());
        int port = start(Containers.GRIZZLY, new ResourceConfig().register(QuotaFeature.builder(service).build())
                .register(admin()).register(principal));

        assertThat(RawHttp.get("127.0.0.1", port, "/admin/config", "Authorization", BEARER).status()).isEqualTo(200);

        assertThat(seen).containsExactly("quota-admin Bearer");
    }

    /** A security context with a principal of {@code name}, as an application's authentication sets one. */
    private static ContainerRequestFilter authenticatingAs(String name) {
        return request -> request.setSecurityContext(new SecurityContext() {
            @Override
            public Principal getUserPrincipal() {
                return () -> name;
            }

            @Override
            public boolean isUserInRole(String role) {
                return true;
            }

            @Override
            public boolean isSecure() {
                return false;
            }

            @Override
            public String getAuthenticationScheme() {
                return "Basic";
            }
        });
    }

    @Test
    void theApplicationsAuthentication_runsBeforeTheAdminToken_whichThenDecides() {
        int port = start(Containers.GRIZZLY, new ResourceConfig().register(QuotaFeature.builder(service).build())
                .register(admin()).register(authenticatingAs("alice"), Priorities.AUTHENTICATION));

        assertThat(RawHttp.get("127.0.0.1", port, "/admin/config", "Authorization", BEARER).status()).isEqualTo(200);
        assertThat(RawHttp.get("127.0.0.1", port, "/admin/config", "Authorization", "Bearer wrong").status())
                .isEqualTo(401);
    }

    @Test
    void aSecurityContextReplacedAfterTheAdminFilter_isNotLetThrough_evenWithThePrincipalsName() {
        int port = start(Containers.GRIZZLY, new ResourceConfig().register(QuotaFeature.builder(service).build())
                .register(admin()).register(authenticatingAs(AdminGuard.PRINCIPAL), Priorities.USER));

        assertThat(RawHttp.get("127.0.0.1", port, "/admin/config", "Authorization", BEARER).status())
                .as("the guard's principal is an object of its own, not a name").isEqualTo(503);
        assertThat(RawHttp.get("127.0.0.1", port, "/admin/config", "Authorization", "Bearer wrong").status())
                .isEqualTo(401);
    }

    /** A resource that is not the admin API, to show the admin filter stays on the admin methods. */
    @Path("/plain")
    public static final class Plain {
        @GET
        public String plain(@Context SecurityContext security) {
            return String.valueOf(security.getUserPrincipal());
        }
    }

    @Test
    void adminFilter_isOnTheAdminMethodsOnly() {
        int port = start(Containers.GRIZZLY, new ResourceConfig(Plain.class)
                .register(QuotaFeature.builder(service).clientAddress(request -> "192.0.2.1").build())
                .register(admin()));

        RawHttp.Answer plain = RawHttp.get("127.0.0.1", port, "/plain", "Authorization", "Bearer wrong");

        assertThat(plain.status()).isEqualTo(200);
        assertThat(plain.body()).isEqualTo("null");
    }

    /**
     * What broke: RESTEasy in WildFly constructs every {@code @Path} class it finds in
     * {@code WEB-INF/lib}, and refused to deploy an application with the admin API off
     * (RESTEASY003190: no constructor for QuotaAdminResource). It takes a public constructor whose
     * parameters are all {@code @Context}; CDI takes none such for a bean, so a CDI producer of the
     * type stays the only bean of it.
     */
    @Test
    void scanningRuntime_findsAPublicConstructorOfContextParameters_thatCdiTakesForNoBean() {
        List<Constructor<?>> constructors = List.of(QuotaAdminResource.class.getConstructors());

        assertThat(constructors).singleElement().satisfies(constructor -> {
            assertThat(constructor.getParameterCount()).as("CDI would take a no-argument constructor").isPositive();
            for (Parameter parameter : constructor.getParameters()) {
                assertThat(parameter.isAnnotationPresent(Context.class)).as("%s", parameter).isTrue();
                assertThat(INJECTED_EVERYWHERE).contains(parameter.getType());
            }
            assertThat(constructor.getAnnotations()).as("no @Inject").isEmpty();
        });
    }

    @ParameterizedTest
    @EnumSource(Containers.class)
    void adminClassConstructedByTheRuntime_isOff_everyCallIs404(Containers container) {
        int port = start(container, new ResourceConfig(QuotaAdminResource.class)
                .register(QuotaFeature.builder(service).build()));

        assertThat(RawHttp.get("127.0.0.1", port, "/admin/config", "Authorization", BEARER).status()).isEqualTo(404);
        assertThat(RawHttp.get("127.0.0.1", port, "/admin/customers/acme").status()).isEqualTo(404);
        assertThat(RawHttp.send(port, "DELETE", "/admin/customers/acme/buckets", new byte[0]).status()).isEqualTo(404);
    }

    /** Runs {@code action} with System.err captured; slf4j-simple writes there, looked up per line. */
    private static String capturingStderr(Runnable action) {
        PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            action.run();
        } finally {
            System.setErr(original);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }
}
