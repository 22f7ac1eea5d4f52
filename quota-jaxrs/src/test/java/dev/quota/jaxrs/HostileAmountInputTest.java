package dev.quota.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.testkit.RawHttp;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Attack: huge and odd inputs to an {@link AmountLimit} endpoint. Each is answered with a clear 4xx
 * (a problem from this module where the quota check is what refuses it), never a 5xx or a stack
 * trace, and never echoes what was sent.
 */
class HostileAmountInputTest {

    private final Fixture fixture = Fixture.with(TestConfig.standard().amounts(AmountLimitTest.TRANSFER_AMOUNT))
            .application(app -> app.register(TestResources.Payouts.class))
            .start();

    @AfterEach
    void stop() {
        fixture.close();
    }

    private RawHttp.Answer payout(String json) {
        return RawHttp.postJson(fixture.server.port(), "/api/v1/payouts", json, "X-API-Key", TestConfig.ACME_KEY);
    }

    @Test
    void tenMegabyteCurrency_is400InvalidAmount_withoutEchoingIt() {
        String currency = "E".repeat(10 * 1024 * 1024);

        RawHttp.Answer answer = payout("{\"currency\":\"" + currency + "\",\"amountMinor\":100}");

        assertThat(answer.status()).isEqualTo(400);
        assertThat(answer.header("Content-Type")).isEqualTo("application/problem+json");
        assertThat(answer.body()).contains("\"type\":\"urn:quota:problem:invalid-amount\"").hasSizeLessThan(400)
                .doesNotContain("EEEE");
    }

    @Test
    void tenThousandCharacterCurrency_is400InvalidAmount_withoutEchoingIt() {
        RawHttp.Answer answer = payout("{\"currency\":\"" + "X".repeat(10_000) + "\",\"amountMinor\":100}");

        assertThat(answer.status()).isEqualTo(400);
        assertThat(answer.body()).isEqualTo("{\"type\":\"urn:quota:problem:invalid-amount\",\"title\":\"Bad Request\","
                + "\"status\":400,\"detail\":\"The request's amount cannot be checked: its currency (or other qualifier)"
                + " must be 1 to 32 letters, digits, _, . or -.\",\"instance\":\"/api/v1/payouts\"}");
    }

    @Test
    void currencyWithQuotesAndControls_is400_withoutEchoingIt() {
        RawHttp.Answer answer = payout("{\"currency\":\"EUR\\\"}<script>\\u0000\",\"amountMinor\":100}");

        assertThat(answer.status()).isEqualTo(400);
        assertThat(answer.body()).contains("invalid-amount").doesNotContain("script");
    }

    @Test
    void tenMegabyteBodyOfPadding_isA4xx_neverA500() {
        String json = "{\"currency\":\"EUR\",\"amountMinor\":100,\"memo\":\"" + "m".repeat(10 * 1024 * 1024) + "\"}";

        RawHttp.Answer answer = payout(json);

        assertThat(answer.status()).isBetween(400, 499);
        assertThat(answer.body()).doesNotContain("mmmmmmmm").doesNotContain("Exception").hasSizeLessThan(2_000);
    }

    @Test
    void tenMegabytesOfNothingLikeJson_isA4xx_neverA500() {
        byte[] body = new byte[10 * 1024 * 1024];
        Arrays.fill(body, (byte) '[');

        RawHttp.Answer answer = RawHttp.send(fixture.server.port(), "POST", "/api/v1/payouts", body,
                "Content-Type", "application/json", "X-API-Key", TestConfig.ACME_KEY);

        assertThat(answer.status()).isBetween(400, 499);
        assertThat(answer.body()).doesNotContain("Exception").hasSizeLessThan(2_000);
    }

    @Test
    void amountOfLongMaxValue_is422ExceedsLimit() {
        RawHttp.Answer answer = payout("{\"currency\":\"EUR\",\"amountMinor\":" + Long.MAX_VALUE + "}");

        assertThat(answer.status()).isEqualTo(422);
        assertThat(answer.header("Retry-After")).isNull();
        assertThat(answer.body()).contains("\"type\":\"urn:quota:problem:exceeds-limit\"")
                .contains("\"limit\":\"transfer-amount-daily\"");
    }

    @Test
    void amountBeyondLong_isA4xx_neverA500() {
        RawHttp.Answer answer = payout("{\"currency\":\"EUR\",\"amountMinor\":92233720368547758070}");

        assertThat(answer.status()).isBetween(400, 499);
        assertThat(answer.body()).doesNotContain("Exception");
    }

    @Test
    void amountOfLongMinValue_is400InvalidAmount() {
        RawHttp.Answer answer = payout("{\"currency\":\"EUR\",\"amountMinor\":" + Long.MIN_VALUE + "}");

        assertThat(answer.status()).isEqualTo(400);
        assertThat(answer.body()).contains("invalid-amount").doesNotContain(Long.toString(Long.MIN_VALUE));
    }

    @Test
    void missingAndNullBodies_are400InvalidAmount() {
        RawHttp.Answer empty = RawHttp.send(fixture.server.port(), "POST", "/api/v1/payouts", new byte[0],
                "Content-Type", "application/json", "X-API-Key", TestConfig.ACME_KEY);
        RawHttp.Answer jsonNull = payout("null");
        RawHttp.Answer noCurrency = payout("{\"amountMinor\":100}");

        assertThat(empty.status()).as("an empty body").isEqualTo(400);
        assertThat(jsonNull.status()).as("a JSON null").isEqualTo(400);
        assertThat(noCurrency.status()).as("no currency").isEqualTo(400);
        assertThat(noCurrency.body()).contains("invalid-amount");
    }

    @Test
    void nulBytesInHeaders_areRefusedWhereTheyAreRead_andIgnoredElsewhere_neverA500() {
        byte[] body = "{\"currency\":\"EUR\",\"amountMinor\":100}".getBytes(StandardCharsets.UTF_8);

        RawHttp.Answer keyEndingInNul = send(body, "X-API-Key", TestConfig.ACME_KEY + "\0");
        RawHttp.Answer keyStartingWithNul = send(body, "X-API-Key", "\0" + TestConfig.ACME_KEY);
        RawHttp.Answer contentType = send(body, "X-API-Key", TestConfig.ACME_KEY, "Content-Type", "application/json\0");
        // headers the service does not read (X-Forwarded-For from a peer that is no trusted proxy) change nothing
        RawHttp.Answer forwardedFor = send(body, "X-API-Key", TestConfig.ACME_KEY, "X-Forwarded-For", "1.2.3.4\0");
        RawHttp.Answer otherHeader = send(body, "X-API-Key", TestConfig.ACME_KEY, "X\0Y", "z\0");

        assertThat(keyEndingInNul.status()).isEqualTo(401);
        assertThat(keyEndingInNul.body()).contains("unknown-api-key").doesNotContain("\0").doesNotContain("acme-key");
        assertThat(keyStartingWithNul.status()).isEqualTo(401);
        assertThat(contentType.status()).isBetween(400, 499);
        assertThat(contentType.body()).doesNotContain("Exception").doesNotContain("\0");
        assertThat(forwardedFor.status()).isEqualTo(201);
        assertThat(otherHeader.status()).isEqualTo(201);
        System.out.println("NUL in headers: key " + keyEndingInNul.status() + "/" + keyStartingWithNul.status()
                + ", Content-Type " + contentType.status() + ", X-Forwarded-For " + forwardedFor.status()
                + ", another header " + otherHeader.status());
    }

    private RawHttp.Answer send(byte[] body, String... headers) {
        String[] all = Arrays.copyOf(headers, headers.length + 2);
        if (Arrays.asList(headers).contains("Content-Type")) {
            all = headers;
        } else {
            all[headers.length] = "Content-Type";
            all[headers.length + 1] = "application/json";
        }
        return RawHttp.send(fixture.server.port(), "POST", "/api/v1/payouts", body, all);
    }
}
