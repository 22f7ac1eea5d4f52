package dev.quota.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Customer;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Exact headers and bodies of admitted and rejected requests, at a frozen clock. */
class HeadersTest {

    private Fixture fixture = Fixture.start(TestConfig.standard());

    @AfterEach
    void stop() {
        fixture.close();
    }

    private HttpResponse<String> account() {
        return fixture.server.get("/api/v1/accounts/1", "X-API-Key", TestConfig.ACME_KEY);
    }

    @Test
    void admittedRequest_carriesRateLimitAndXRateLimitHeaders() {
        HttpResponse<String> response = account();

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo("account 1");
        assertThat(response.headers().firstValue("RateLimit-Policy")).hasValue("\"free-burst\";q=20;w=2");
        // one token short of full at 10 per second: full again in 0.1 s, rounded up
        assertThat(response.headers().firstValue("RateLimit")).hasValue("\"free-burst\";r=19;t=1");
        assertThat(response.headers().firstValue("X-RateLimit-Limit")).hasValue("20");
        assertThat(response.headers().firstValue("X-RateLimit-Remaining")).hasValue("19");
        assertThat(response.headers().firstValue("X-RateLimit-Reset")).hasValue("1");
        assertThat(response.headers().firstValue("Retry-After")).isEmpty();
        assertThat(response.headers().firstValue("Quota-Status")).isEmpty();
    }

    @Test
    void requestPastTheBurstAtFrozenTime_is429WithExactHeadersAndBody() {
        for (int i = 0; i < 20; i++) {
            assertThat(account().statusCode()).isEqualTo(200);
        }

        HttpResponse<String> response = account();

        assertThat(response.statusCode()).isEqualTo(429);
        assertThat(response.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(response.headers().firstValue("RateLimit-Policy")).hasValue("\"free-burst\";q=20;w=2");
        assertThat(response.headers().firstValue("RateLimit")).hasValue("\"free-burst\";r=0;t=2");
        assertThat(response.headers().firstValue("X-RateLimit-Remaining")).isEmpty();
        assertThat(response.body()).isEqualTo("{\"type\":\"urn:quota:problem:quota-exceeded\","
                + "\"title\":\"Too Many Requests\",\"status\":429,"
                + "\"detail\":\"Limit free-burst is exhausted (20 per 2 s); retry in 1 s.\","
                + "\"instance\":\"/api/v1/accounts/1\",\"limit\":\"free-burst\",\"remaining\":0,"
                + "\"retryAfterSeconds\":1}");
    }

    @Test
    void retryAfter_isHonest_theRequestPassesOnceItHasElapsed() {
        for (int i = 0; i < 20; i++) {
            account();
        }
        assertThat(account().statusCode()).isEqualTo(429);

        fixture.clock.advance(Duration.ofMillis(99));
        assertThat(account().statusCode()).isEqualTo(429);
        fixture.clock.advance(Duration.ofMillis(1));
        HttpResponse<String> response = account();

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("RateLimit")).hasValue("\"free-burst\";r=0;t=2");
    }

    @Test
    void planWithTwoLimits_listsBothInBothHeaders_tightestInXRateLimit() {
        fixture.close();
        fixture = Fixture.start(TestConfig.standard().plan("free", TestConfig.BURST, TestConfig.DAILY));

        HttpResponse<String> response = account();

        assertThat(response.statusCode()).isEqualTo(200);
        // decision order is the core's business; each limit must be there exactly once
        assertThat(items(response, "RateLimit-Policy"))
                .containsExactlyInAnyOrder("\"free-burst\";q=20;w=2", "\"free-daily\";q=1000;w=86400");
        // noon UTC: the calendar day resets in 12 hours
        assertThat(items(response, "RateLimit"))
                .containsExactlyInAnyOrder("\"free-burst\";r=19;t=1", "\"free-daily\";r=999;t=43200");
        assertThat(response.headers().firstValue("X-RateLimit-Limit")).hasValue("20");
        assertThat(response.headers().firstValue("X-RateLimit-Remaining")).hasValue("19");
        assertThat(response.headers().firstValue("X-RateLimit-Reset")).hasValue("1");
    }

    @Test
    void customerMultiplier_isReflectedInTheAdvertisedCapacity() {
        fixture.close();
        TestConfig config = TestConfig.standard();
        config.customer(Customer.of("bigco", "free", 2.0), "bigco-key-0123456789");
        fixture = Fixture.start(config);

        HttpResponse<String> response = fixture.server.get("/api/v1/accounts/1", "X-API-Key", "bigco-key-0123456789");

        // capacity 40, refill 20 per second: empty to full in 2 s
        assertThat(response.headers().firstValue("RateLimit-Policy")).hasValue("\"free-burst\";q=40;w=2");
        assertThat(response.headers().firstValue("RateLimit")).hasValue("\"free-burst\";r=39;t=1");
    }

    private static String[] items(HttpResponse<String> response, String header) {
        return Arrays.stream(response.headers().firstValue(header).orElseThrow().split(", "))
                .toArray(String[]::new);
    }
}
