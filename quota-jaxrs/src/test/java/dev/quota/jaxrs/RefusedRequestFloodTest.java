package dev.quota.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Customer;
import dev.quota.core.Limit;
import dev.quota.core.LimitStatus;
import dev.quota.core.Refill;
import dev.quota.core.RouteMatch;
import dev.quota.core.Rule;
import dev.quota.testkit.RawHttp;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Attack: a flood of requests that are refused anyway (an amount over the limit, the transfers rule
 * used up, an amount that is no amount) must be limited like any other flood. Each refused request
 * costs its plan a request token, so after the plan's burst the flood gets 429 naming the burst, and
 * the plan's standing shows every request it let through to be refused.
 */
class RefusedRequestFloodTest {

    /** Ten payouts per minute per customer, 1,000 per second for everyone. */
    static final Rule PAYOUTS = Rule.builder("payouts").matches(List.of(RouteMatch.parse("POST /api/v1/payouts")))
            .perCustomer(List.of(new Limit("minute", 10, Refill.greedy(10, Duration.ofMinutes(1)))))
            .shared(List.of(new Limit("all", 1000, Refill.greedy(1000, Duration.ofSeconds(1))))).build();

    private static final Customer ACME = Customer.of("acme", "free");

    private final Fixture fixture = Fixture.with(new TestConfig()
                    .plan("free", TestConfig.BURST, TestConfig.DAILY)
                    .customer("acme", "free", TestConfig.ACME_KEY)
                    .rule(PAYOUTS)
                    .amounts(AmountLimitTest.TRANSFER_AMOUNT))
            .application(app -> app.register(TestResources.Payouts.class))
            .start();

    @AfterEach
    void stop() {
        fixture.close();
    }

    private RawHttp.Answer payout(String currency, long amountMinor) {
        return RawHttp.postJson(fixture.server.port(), "/api/v1/payouts",
                "{\"currency\":\"" + currency + "\",\"amountMinor\":" + amountMinor + "}",
                "X-API-Key", TestConfig.ACME_KEY);
    }

    @Test
    void amountsOverTheWholeLimit_are422_untilThePlanBurstIsSpent_then429NamingTheBurst() {
        for (int i = 0; i < 20; i++) {
            RawHttp.Answer refused = payout("EUR", 2_000_000);
            assertThat(refused.status()).as("payout %d of 20,000.00", i + 1).isEqualTo(422);
            assertThat(refused.body()).contains("\"type\":\"urn:quota:problem:exceeds-limit\"");
        }

        RawHttp.Answer flooded = payout("EUR", 2_000_000);

        assertThat(flooded.status()).isEqualTo(429);
        assertThat(flooded.body()).contains("\"limit\":\"free-burst\"");
        assertThat(flooded.header("Retry-After")).isEqualTo("1");
        assertThat(flooded.header("RateLimit")).startsWith("\"free-burst\";r=0;");
        assertStanding(0, 980, 10);
        assertThat(fixture.service.admin().amountStanding(ACME, "transfer-amount", "EUR").get(0).remaining())
                .as("no amount was taken").isEqualTo(1_000_000);
    }

    @Test
    void amountsOverWhatIsLeft_are429NamingTheAmount_untilThePlanBurstIsSpent_then429NamingTheBurst() {
        assertThat(payout("EUR", 900_000).status()).isEqualTo(201);
        for (int i = 0; i < 19; i++) {
            RawHttp.Answer refused = payout("EUR", 200_000);
            assertThat(refused.status()).as("payout %d of 2,000.00 with 1,000.00 left", i + 1).isEqualTo(429);
            assertThat(refused.body()).contains("\"limit\":\"transfer-amount-daily\"");
        }

        RawHttp.Answer flooded = payout("EUR", 200_000);

        assertThat(flooded.status()).isEqualTo(429);
        assertThat(flooded.body()).contains("\"limit\":\"free-burst\"");
        // the one payout that passed took a token of the rule; the refused ones took none
        assertStanding(0, 980, 9);
    }

    @Test
    void payoutsPastTheRule_are429NamingTheRule_untilThePlanBurstIsSpent_then429NamingTheBurst() {
        for (int i = 0; i < 10; i++) {
            assertThat(payout("EUR", 100).status()).as("payout %d", i + 1).isEqualTo(201);
        }
        for (int i = 0; i < 10; i++) {
            RawHttp.Answer refused = payout("EUR", 100);
            assertThat(refused.status()).as("payout %d past the rule", i + 1).isEqualTo(429);
            assertThat(refused.body()).contains("\"limit\":\"payouts-minute\"");
        }

        RawHttp.Answer flooded = payout("EUR", 100);

        assertThat(flooded.status()).isEqualTo(429);
        assertThat(flooded.body()).contains("\"limit\":\"free-burst\"");
        assertStanding(0, 980, 0);
    }

    @Test
    void invalidAmounts_are400_untilThePlanBurstIsSpent_then429NamingTheBurst() {
        for (int i = 0; i < 20; i++) {
            RawHttp.Answer refused = payout("EUR", -1);
            assertThat(refused.status()).as("payout %d of -0.01", i + 1).isEqualTo(400);
            assertThat(refused.body()).contains("\"type\":\"urn:quota:problem:invalid-amount\"");
        }

        RawHttp.Answer flooded = payout("EUR", -1);

        assertThat(flooded.status()).isEqualTo(429);
        assertThat(flooded.body()).contains("\"limit\":\"free-burst\"");
        assertStanding(0, 980, 10);
    }

    @Test
    void payoutsTheResourceDeclines_costTheirRequest_butNoPayoutNorAmount() {
        for (int i = 0; i < 20; i++) {
            RawHttp.Answer declined = RawHttp.postJson(fixture.server.port(), "/api/v1/payouts/declined",
                    "{\"currency\":\"EUR\",\"amountMinor\":100000}", "X-API-Key", TestConfig.ACME_KEY);
            assertThat(declined.status()).as("declined payout %d", i + 1).isEqualTo(409);
        }

        RawHttp.Answer flooded = payout("EUR", 100);

        assertThat(flooded.status()).isEqualTo(429);
        assertThat(flooded.body()).contains("\"limit\":\"free-burst\"");
        assertStanding(0, 980, 10);
        assertThat(fixture.service.admin().amountStanding(ACME, "transfer-amount", "EUR").get(0).remaining())
                .isEqualTo(1_000_000);
    }

    /** Where acme stands in its burst, its daily limit and the payouts rule. */
    private void assertStanding(long burst, long daily, long payoutsMinute) {
        Map<String, Long> remaining = new LinkedHashMap<>();
        for (LimitStatus status : fixture.service.admin().standing(ACME)) {
            remaining.put(status.policy(), status.remaining());
        }
        assertThat(remaining).containsExactlyInAnyOrderEntriesOf(Map.of(
                "free-burst", burst, "free-daily", daily, "payouts-minute", payoutsMinute));
    }
}
