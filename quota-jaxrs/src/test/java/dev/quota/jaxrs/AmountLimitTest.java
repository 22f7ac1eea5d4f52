package dev.quota.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quota.core.AmountLimits;
import dev.quota.core.FailurePolicy;
import dev.quota.core.Limit;
import dev.quota.core.QuotaDecision;
import dev.quota.core.Refill;
import jakarta.ws.rs.core.Response;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Amounts taken by the resource itself and reported through {@link QuotaExceededException}. */
class AmountLimitTest {

    /** 10,000.00 per calendar day (UTC), in cents. */
    static final AmountLimits TRANSFER_AMOUNT = AmountLimits.of("transfer-amount",
            List.of(new Limit("daily", 1_000_000, Refill.calendar(ChronoUnit.DAYS, ZoneOffset.UTC))),
            FailurePolicy.CLOSED);

    private final Fixture fixture = Fixture.start(TestConfig.standard().amounts(TRANSFER_AMOUNT));

    @AfterEach
    void stop() {
        fixture.close();
    }

    private HttpResponse<String> pay(long cents) {
        return fixture.server.send(fixture.server.request("/api/v1/payments?cents=" + cents)
                .header("X-API-Key", TestConfig.ACME_KEY).POST(HttpRequest.BodyPublishers.noBody()));
    }

    @Test
    void amountWithinTheLimit_passes_withThePlanHeadersOnly() {
        HttpResponse<String> response = pay(600_000);

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo("paid 600000");
        assertThat(response.headers().firstValue("RateLimit-Policy")).hasValue("\"free-burst\";q=20;w=2");
    }

    @Test
    void amountOverTheLimit_is429WithAmountFields_andNoRateLimitHeaders() {
        pay(600_000);

        HttpResponse<String> response = pay(600_000);

        assertThat(response.statusCode()).isEqualTo(429);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        // noon UTC: the day's amount comes back at midnight, in 12 hours
        assertThat(response.headers().firstValue("Retry-After")).hasValue("43200");
        assertThat(response.headers().map()).doesNotContainKeys("ratelimit", "ratelimit-policy",
                "x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset");
        assertThat(response.body()).isEqualTo("{\"type\":\"urn:quota:problem:quota-exceeded\","
                + "\"title\":\"Too Many Requests\",\"status\":429,"
                + "\"detail\":\"Limit transfer-amount-daily has 400000 left, too few for this request"
                + " (1000000 per calendar day); retry in 43200 s.\","
                + "\"instance\":\"/api/v1/payments\",\"limit\":\"transfer-amount-daily\",\"remaining\":400000,"
                + "\"retryAfterSeconds\":43200,\"resetSeconds\":43200}");
    }

    @Test
    void amountOverTheLimit_stillCostsThePlanItsRequestToken() {
        pay(600_000);
        pay(600_000);

        HttpResponse<String> next = pay(1);

        // 20 burst tokens: every payment, refused or not, was a request
        assertThat(next.headers().firstValue("RateLimit")).hasValue("\"free-burst\";r=17;t=1");
    }

    @Test
    void unavailableDecision_is503WithRetryAfter() {
        Response response = new QuotaExceededException(QuotaDecision.builder(QuotaDecision.Outcome.UNAVAILABLE)
                .retryAfter(Duration.ofMillis(1500)).build()).getResponse();

        assertThat(response.getStatus()).isEqualTo(503);
        assertThat(response.getHeaderString("Retry-After")).isEqualTo("2");
    }

    @Test
    void admittingDecision_cannotBeThrown() {
        QuotaDecision allowed = QuotaDecision.allowed(List.of());

        assertThatThrownBy(() -> new QuotaExceededException(allowed))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("decision must be REJECTED, EXCEEDS_LIMIT or UNAVAILABLE but was ALLOWED");
    }
}
