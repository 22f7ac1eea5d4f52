package dev.quota.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Limit;
import dev.quota.core.Refill;
import dev.quota.core.RouteMatch;
import dev.quota.core.Rule;
import dev.quota.testkit.RawHttp;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Attack: reading other customers' activity from a limit every customer shares. A transfer's
 * RateLimit headers never list the shared limit, and the 429 it gives once spent names it without
 * its remaining tokens, in the body and in the headers.
 */
class SharedLimitDisclosureTest {

    static final String GLOBEX_KEY = "globex-key-0123456789";

    /** Ten payouts a minute per customer; three a minute for all customers together. */
    static final Rule PAYOUTS = Rule.builder("payouts").matches(List.of(RouteMatch.parse("POST /api/v1/payouts")))
            .perCustomer(List.of(new Limit("minute", 10, Refill.greedy(10, Duration.ofMinutes(1)))))
            .shared(List.of(new Limit("all", 3, Refill.greedy(3, Duration.ofMinutes(1))))).build();

    private final Fixture fixture = Fixture.with(TestConfig.standard()
                    .customer("globex", "free", GLOBEX_KEY)
                    .rule(PAYOUTS)
                    .amounts(AmountLimitTest.TRANSFER_AMOUNT))
            .application(app -> app.register(TestResources.Payouts.class))
            .start();

    @AfterEach
    void stop() {
        fixture.close();
    }

    private RawHttp.Answer payout(String key) {
        return RawHttp.postJson(fixture.server.port(), "/api/v1/payouts", "{\"currency\":\"EUR\",\"amountMinor\":100}",
                "X-API-Key", key);
    }

    @Test
    void admittedPayouts_listTheCustomersOwnLimitsOnly() {
        for (int i = 0; i < 3; i++) {
            RawHttp.Answer admitted = payout(i == 1 ? GLOBEX_KEY : TestConfig.ACME_KEY);

            assertThat(admitted.status()).isEqualTo(201);
            assertThat(admitted.header("RateLimit-Policy")).isNotNull().doesNotContain("payouts-all")
                    .doesNotContain("transfer-amount");
            assertThat(admitted.header("RateLimit")).isNotNull().doesNotContain("payouts-all");
            assertThat(admitted.header("X-RateLimit-Limit")).as("the tightest of the customer's own limits")
                    .isIn("10", "20");
        }
    }

    @Test
    void spentSharedLimit_is429NamingIt_withoutItsRemainingTokens() {
        payout(TestConfig.ACME_KEY);
        payout(GLOBEX_KEY);
        payout(GLOBEX_KEY);

        RawHttp.Answer refused = payout(TestConfig.ACME_KEY);

        assertThat(refused.status()).isEqualTo(429);
        assertThat(refused.body()).contains("\"limit\":\"payouts-all\"").doesNotContain("\"remaining\"")
                .contains("shared by every customer");
        assertThat(refused.header("Retry-After")).isEqualTo("20");
        assertThat(refused.header("RateLimit-Policy")).isNotNull().doesNotContain("payouts-all");
        assertThat(refused.header("RateLimit")).isNotNull().doesNotContain("payouts-all");
        assertThat(refused.headers()).doesNotContainKeys("x-ratelimit-remaining", "x-ratelimit-limit");
    }
}
