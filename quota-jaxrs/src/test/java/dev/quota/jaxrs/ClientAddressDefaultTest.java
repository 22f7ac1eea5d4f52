package dev.quota.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Identity;
import dev.quota.core.QuotaService;
import dev.quota.core.net.Cidr;
import dev.quota.core.store.InMemoryStore;
import dev.quota.testkit.MutableClock;
import dev.quota.testkit.RawHttp;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.glassfish.jersey.internal.MapPropertiesDelegate;
import org.glassfish.jersey.server.ApplicationHandler;
import org.glassfish.jersey.server.ContainerRequest;
import org.glassfish.jersey.server.ContainerResponse;
import org.glassfish.jersey.server.ResourceConfig;
import org.glassfish.jersey.server.ServerProperties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The feature's default client address is the TCP peer, found without user code on each Jersey
 * container, behind the config's {@code identity.trustedProxies}; never one bucket for everybody.
 */
class ClientAddressDefaultTest {

    private final MutableClock clock = MutableClock.at(TestConfig.NOON);
    private QuotaService service;
    private Containers.Running server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        if (service != null) {
            service.close();
        }
    }

    private ResourceConfig application(TestConfig config) {
        service = QuotaService.builder().store(InMemoryStore.builder().clock(clock).build()).config(config.build())
                .clock(clock).build();
        return new ResourceConfig(TestResources.Accounts.class, TestResources.WhoAmI.class)
                .register(QuotaFeature.builder(service).build())
                .property(ServerProperties.WADL_FEATURE_DISABLE, true);
    }

    private int start(Containers container, TestConfig config) {
        server = container.start(application(config));
        return server.port();
    }

    @ParameterizedTest
    @EnumSource(Containers.class)
    void defaultAddress_isTheTcpPeer_soEachClientHasItsOwnAnonymousBucket(Containers container) {
        int port = start(container, TestConfig.standard());

        assertThat(RawHttp.get("127.0.0.2", port, "/api/v1/whoami").body()).isEqualTo("ip:127.0.0.2 on anonymous");
        for (int i = 0; i < 5; i++) {
            assertThat(RawHttp.get("127.0.0.1", port, "/api/v1/accounts/1").status()).as("request %d", i + 1)
                    .isEqualTo(200);
        }
        RawHttp.Answer sixth = RawHttp.get("127.0.0.1", port, "/api/v1/accounts/1");
        RawHttp.Answer otherClient = RawHttp.get("127.0.0.2", port, "/api/v1/accounts/1");

        assertThat(sixth.status()).isEqualTo(429);
        assertThat(otherClient.status()).isEqualTo(200);
        // 127.0.0.2 took 2 of its own 5 (greedy, one back every 12 s)
        assertThat(otherClient.header("RateLimit")).isEqualTo("\"anonymous-minute\";r=3;t=24");
    }

    @ParameterizedTest
    @EnumSource(Containers.class)
    void requestsTheRuntimeRefuses_areCountedByTheTcpPeer_regressionForUncounted405(Containers container) {
        int port = start(container, TestConfig.standard());

        for (int i = 0; i < 5; i++) {
            assertThat(RawHttp.send("127.0.0.3", port, "DELETE", "/api/v1/accounts/1", null).status())
                    .as("DELETE %d", i + 1).isEqualTo(405);
        }
        RawHttp.Answer sixth = RawHttp.send("127.0.0.3", port, "DELETE", "/api/v1/accounts/1", null);

        assertThat(sixth.status()).isEqualTo(429);
        assertThat(sixth.body()).contains("\"limit\":\"anonymous-minute\"");
        assertThat(RawHttp.get("127.0.0.4", port, "/api/v1/accounts/1").status()).as("another client").isEqualTo(200);
    }

    @Test
    void defaultAddress_believesXForwardedForOnlyFromTheConfigsTrustedProxies_readPerRequest() {
        int port = start(Containers.GRIZZLY, TestConfig.standard());
        String[] forwarded = {"X-Forwarded-For", "198.51.100.9, 203.0.113.7"};

        assertThat(RawHttp.get("127.0.0.1", port, "/api/v1/whoami", forwarded).body())
                .as("no trusted proxies: the header is any client's claim")
                .isEqualTo("ip:127.0.0.1 on anonymous");

        service.reload(TestConfig.standard().identity(Identity.builder()
                .trustedProxies(List.of(Cidr.parse("127.0.0.0/8"))).build())
                .build().withVersion(0));

        assertThat(RawHttp.get("127.0.0.1", port, "/api/v1/whoami", forwarded).body())
                .as("after the reload 127.0.0.0/8 is a trusted proxy: its right-most hop is the client")
                .isEqualTo("ip:203.0.113.7 on anonymous");
    }

    @Test
    void defaultAddress_whenTheRuntimeReportsNoPeer_is503ProblemAndAnErrorLogWithTheFix() throws Exception {
        // Jersey without a container: Grizzly, Jetty and servlet adapters are registered, none has a request
        ApplicationHandler jersey = new ApplicationHandler(application(TestConfig.standard()));
        ContainerRequest request = new ContainerRequest(URI.create("http://127.0.0.1/"),
                URI.create("http://127.0.0.1/api/v1/accounts/1"), "GET", null, new MapPropertiesDelegate(),
                jersey.getConfiguration());

        ContainerResponse response;
        String log;
        PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            response = jersey.apply(request).get();
        } finally {
            System.setErr(original);
            log = captured.toString(StandardCharsets.UTF_8);
        }

        assertThat(response.getStatus()).isEqualTo(503);
        assertThat(response.getMediaType()).hasToString("application/problem+json");
        assertThat(new String((byte[]) response.getEntity(), StandardCharsets.UTF_8))
                .contains("\"type\":\"urn:quota:problem:quota-check-failed\"");
        assertThat(log).contains("ERROR dev.quota.jaxrs.QuotaRequestFilter - quota check failed for GET /api/v1/accounts/1")
                .contains("the runtime reported no client address for this request")
                .contains("QuotaFeature.builder(service).clientAddress(request -> ...)");
    }
}
