package dev.quota.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Identity;
import dev.quota.core.Limit;
import dev.quota.core.Refill;
import jakarta.ws.rs.Priorities;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Attack: a customer id that looks like another namespace's. Configured customers named
 * {@code ip:198.51.100.7} and {@code user:alice} must never share a bucket with the anonymous caller
 * at 198.51.100.7 or with the authenticated principal alice, whichever of them spends first.
 */
class NamespaceTest {

    static final String ADDRESS = "198.51.100.7";
    static final String IP_KEY = "ip-customer-key-0001";
    static final String USER_KEY = "user-customer-key-0001";

    private final Fixture fixture = Fixture.with(new TestConfig()
                    .plan("free", TestConfig.BURST)
                    .plan("anonymous", new Limit("minute", 5, Refill.greedy(5, Duration.ofMinutes(1))))
                    .customer("ip:" + ADDRESS, "free", IP_KEY)
                    .customer("user:alice", "free", USER_KEY)
                    .identity(Identity.builder().principalPlan("free").build()))
            .feature(f -> f.clientAddress(Fixture.PEER)
                    .callerResolver(CallerResolver.firstOf(CallerResolver.principal(), CallerResolver.apiKey())))
            .application(app -> app.register(new TestAuthentication(), Priorities.AUTHENTICATION))
            .start();

    @AfterEach
    void stop() {
        fixture.close();
    }

    private HttpResponse<String> get(String... headers) {
        return fixture.server.get("/api/v1/accounts/1", headers);
    }

    @Test
    void anonymousCallerAtTheAddress_spendsNothingOfTheCustomerNamedAfterIt() {
        for (int i = 0; i < 5; i++) {
            assertThat(get(Fixture.PEER_HEADER, ADDRESS).statusCode()).as("anonymous request %d", i + 1).isEqualTo(200);
        }
        assertThat(get(Fixture.PEER_HEADER, ADDRESS).statusCode()).as("the anonymous plan is spent").isEqualTo(429);

        HttpResponse<String> customer = get(Fixture.PEER_HEADER, ADDRESS, "X-API-Key", IP_KEY);

        assertThat(customer.statusCode()).isEqualTo(200);
        assertThat(customer.headers().firstValue("RateLimit")).hasValue("\"free-burst\";r=19;t=1");
    }

    @Test
    void customerNamedAfterAnAddress_spendsNothingOfTheAnonymousCallerThere() {
        for (int i = 0; i < 20; i++) {
            assertThat(get(Fixture.PEER_HEADER, ADDRESS, "X-API-Key", IP_KEY).statusCode()).isEqualTo(200);
        }
        assertThat(get(Fixture.PEER_HEADER, ADDRESS, "X-API-Key", IP_KEY).statusCode()).isEqualTo(429);

        HttpResponse<String> anonymous = get(Fixture.PEER_HEADER, ADDRESS);

        assertThat(anonymous.statusCode()).isEqualTo(200);
        assertThat(anonymous.headers().firstValue("RateLimit")).hasValue("\"anonymous-minute\";r=4;t=12");
    }

    @Test
    void principalAlice_andTheCustomerNamedUserAlice_spendApart() {
        for (int i = 0; i < 20; i++) {
            assertThat(get("X-Test-User", "alice").statusCode()).as("alice's request %d", i + 1).isEqualTo(200);
        }
        assertThat(get("X-Test-User", "alice").statusCode()).as("alice's burst is spent").isEqualTo(429);

        HttpResponse<String> customer = get("X-API-Key", USER_KEY);

        assertThat(customer.statusCode()).isEqualTo(200);
        assertThat(customer.headers().firstValue("RateLimit")).hasValue("\"free-burst\";r=19;t=1");
        assertThat(fixture.server.get("/api/v1/whoami", "X-API-Key", USER_KEY).body()).isEqualTo("user:alice on free");

        for (int i = 0; i < 18; i++) {
            get("X-API-Key", USER_KEY);
        }
        assertThat(get("X-API-Key", USER_KEY).statusCode()).as("the customer's burst is spent").isEqualTo(429);
        fixture.clock.advance(Duration.ofMillis(100));
        assertThat(get("X-Test-User", "alice").headers().firstValue("RateLimit"))
                .as("alice got one token back in 100 ms and spent it; the customer's use is not hers")
                .hasValue("\"free-burst\";r=0;t=2");
    }
}
