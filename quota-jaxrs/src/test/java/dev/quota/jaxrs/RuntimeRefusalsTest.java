package dev.quota.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Customer;
import dev.quota.core.LimitStatus;
import dev.quota.testkit.RawHttp;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Attack: requests the runtime refuses on a real resource path (405 a method it does not have, 406
 * a media type it cannot produce, 415 a body type it does not take) used to be free. Each costs its
 * plan a request token now, so a flood of them gets 429 after the plan's burst (20 here).
 */
class RuntimeRefusalsTest {

    private static final Customer ACME = Customer.of("acme", "free");

    /** JSON only. */
    @Path("/api/v1/quotes")
    public static final class Quotes {
        @GET
        @Produces(MediaType.APPLICATION_JSON)
        public String quotes() {
            return "{}";
        }
    }

    private final Fixture fixture = Fixture.with(TestConfig.standard()
                    .amounts(AmountLimitTest.TRANSFER_AMOUNT))
            .application(app -> app.register(TestResources.Payouts.class).register(Quotes.class))
            .start();

    @AfterEach
    void stop() {
        fixture.close();
    }

    private RawHttp.Answer send(String method, String path, String... headers) {
        byte[] body = method.equals("POST") ? "1250 EUR".getBytes(StandardCharsets.UTF_8) : null;
        return RawHttp.send(fixture.server.port(), method, path, body, headers);
    }

    private long burstLeft() {
        return fixture.service.admin().standing(ACME).stream().filter(s -> s.policy().equals("free-burst"))
                .mapToLong(LimitStatus::remaining).findFirst().orElseThrow();
    }

    private void floodThenRefused(String method, String path, int status, String... headers) {
        for (int i = 0; i < 20; i++) {
            RawHttp.Answer refused = send(method, path, headers);
            assertThat(refused.status()).as("%s %s, request %d", method, path, i + 1).isEqualTo(status);
            assertThat(refused.header("RateLimit")).as("request %d", i + 1)
                    .isEqualTo("\"free-burst\";r=" + (19 - i) + ";t=" + (i == 0 ? 1 : 1 + i / 10));
        }

        RawHttp.Answer flooded = send(method, path, headers);

        assertThat(flooded.status()).isEqualTo(429);
        assertThat(flooded.header("Content-Type")).startsWith("application/problem+json");
        assertThat(flooded.header("Retry-After")).isEqualTo("1");
        assertThat(flooded.body()).contains("\"limit\":\"free-burst\"");
        assertThat(burstLeft()).isZero();
    }

    @Test
    void methodNotAllowed_costsAToken_regressionForUncounted405() {
        floodThenRefused("DELETE", "/api/v1/accounts/1", 405, "X-API-Key", TestConfig.ACME_KEY);
    }

    @Test
    void unsupportedBodyType_costsAToken_regressionForUncounted415() {
        floodThenRefused("POST", "/api/v1/payouts", 415, "X-API-Key", TestConfig.ACME_KEY, "Content-Type",
                "text/plain");
    }

    @Test
    void unacceptableMediaType_costsAToken_regressionForUncounted406() {
        // java.net.http, not RawHttp: RawHttp always sends Accept: */*
        for (int i = 0; i < 20; i++) {
            HttpResponse<String> refused = fixture.server.get("/api/v1/quotes", "X-API-Key", TestConfig.ACME_KEY,
                    "Accept", "image/png");
            assertThat(refused.statusCode()).as("request %d", i + 1).isEqualTo(406);
        }

        HttpResponse<String> flooded = fixture.server.get("/api/v1/quotes", "X-API-Key", TestConfig.ACME_KEY,
                "Accept", "image/png");

        assertThat(flooded.statusCode()).isEqualTo(429);
        assertThat(flooded.body()).contains("\"limit\":\"free-burst\"");
        assertThat(burstLeft()).isZero();
    }

    @Test
    void anonymous405s_areCountedOnTheAnonymousPlanPerAddress() {
        for (int i = 0; i < 5; i++) {
            assertThat(send("DELETE", "/api/v1/accounts/1").status()).as("anonymous %d", i + 1).isEqualTo(405);
        }

        RawHttp.Answer flooded = send("DELETE", "/api/v1/accounts/1");

        assertThat(flooded.status()).isEqualTo(429);
        assertThat(flooded.body()).contains("\"limit\":\"anonymous-minute\"");
    }

    @Test
    void unmatchedPath_isStillNotCounted() {
        assertThat(send("GET", "/api/v1/nowhere", "X-API-Key", TestConfig.ACME_KEY).status()).isEqualTo(404);

        assertThat(burstLeft()).isEqualTo(20);
    }
}
