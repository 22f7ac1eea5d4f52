package dev.quota.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Customer;
import dev.quota.core.FailurePolicy;
import dev.quota.core.Identity;
import dev.quota.core.Plan;
import dev.quota.core.store.ForwardingStore;
import dev.quota.core.store.InMemoryStore;
import dev.quota.testkit.RawHttp;
import jakarta.ws.rs.Priorities;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Whatever fails inside the quota check, the client gets a problem, never a 500 or a stack trace. */
class FailureTest {

    private static final String CHECK_FAILED = "{\"type\":\"urn:quota:problem:quota-check-failed\","
            + "\"title\":\"Service Unavailable\",\"status\":503,\"detail\":\"The quota check failed.\","
            + "\"instance\":\"/api/v1/accounts/1\"}";

    @Test
    void throwingResolver_is503ProblemWithoutStackTrace() {
        CallerResolver broken = (request, identity) -> {
            throw new IllegalStateException("secret internals");
        };
        try (Fixture fixture = Fixture.with(TestConfig.standard()).feature(f -> f.callerResolver(broken)).start()) {
            HttpResponse<String> response = fixture.server.get("/api/v1/accounts/1");

            assertThat(response.statusCode()).isEqualTo(503);
            assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
            assertThat(response.body()).isEqualTo(CHECK_FAILED);
        }
    }

    @Test
    void throwingClientAddress_is503() {
        ClientAddress broken = request -> {
            throw new IllegalStateException("no address");
        };
        try (Fixture fixture = Fixture.with(TestConfig.standard()).feature(f -> f.clientAddress(broken)).start()) {
            assertThat(fixture.server.get("/api/v1/accounts/1").body()).isEqualTo(CHECK_FAILED);
        }
    }

    @Test
    void customerOnUnknownPlan_is503() {
        Identity gold = Identity.builder().principalPlan("gold").build();
        try (Fixture fixture = Fixture.with(TestConfig.standard().identity(gold))
                .feature(f -> f.callerResolver(CallerResolver.firstOf(CallerResolver.principal(),
                        CallerResolver.apiKey())))
                .application(app -> app.register(new TestAuthentication(), Priorities.AUTHENTICATION))
                .start()) {
            HttpResponse<String> response = fixture.server.get("/api/v1/accounts/1", "X-Test-User", "alice");

            assertThat(response.statusCode()).isEqualTo(503);
            assertThat(response.body()).isEqualTo(CHECK_FAILED).doesNotContain("gold");
        }
    }

    @Test
    void resolverReturningNull_is503() {
        try (Fixture fixture = Fixture.with(TestConfig.standard())
                .feature(f -> f.callerResolver((request, identity) -> null)).start()) {
            assertThat(fixture.server.get("/api/v1/accounts/1").body()).isEqualTo(CHECK_FAILED);
        }
    }

    @Test
    void annotatedRuleMissingFromTheConfig_is503NotUnlimited() {
        try (Fixture fixture = Fixture.start(TestConfig.standard())) {
            HttpResponse<String> response = fixture.server.get("/api/v1/accounts/1/export", "X-API-Key",
                    TestConfig.ACME_KEY);

            assertThat(response.statusCode()).isEqualTo(503);
            assertThat(response.body()).contains("quota-check-failed");
        }
    }

    @Test
    void storeDown_underClosedPolicy_is503WithRetryAfter() {
        try (Fixture fixture = Fixture.with(TestConfig.standard()).store(clock -> new FailingStore()).start()) {
            HttpResponse<String> response = fixture.server.get("/api/v1/accounts/1", "X-API-Key", TestConfig.ACME_KEY);

            assertThat(response.statusCode()).isEqualTo(503);
            assertThat(response.headers().firstValue("Retry-After")).hasValue("1");
            assertThat(response.body()).isEqualTo("{\"type\":\"urn:quota:problem:quota-unavailable\","
                    + "\"title\":\"Service Unavailable\",\"status\":503,"
                    + "\"detail\":\"Quotas cannot be checked right now; retry in 1 s.\","
                    + "\"instance\":\"/api/v1/accounts/1\",\"retryAfterSeconds\":1}");
        }
    }

    @Test
    void storeDown_underOpenPolicy_admitsMarkedUnenforced() {
        TestConfig config = TestConfig.standard()
                .plan(Plan.of("free", List.of(TestConfig.BURST), FailurePolicy.OPEN));
        try (Fixture fixture = Fixture.with(config).store(clock -> new FailingStore()).start()) {
            HttpResponse<String> response = fixture.server.get("/api/v1/accounts/1", "X-API-Key", TestConfig.ACME_KEY);

            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.headers().firstValue("Quota-Status")).hasValue("unenforced");
            assertThat(response.headers().firstValue("RateLimit")).isEmpty();
        }
    }

    /**
     * A refund is settled by the response filter, after the resource answered: a store that throws
     * there (an {@code IllegalArgumentException} passes every failure policy: it is a bug, not an
     * outage) must not turn the bank's 409 into a 500, nor drop its headers. The amount stays taken: the refund
     * failed.
     */
    @Test
    void refundThatThrows_afterTheResourceRefused_keepsTheResourcesAnswer_not500() {
        TestConfig config = new TestConfig()
                .plan("free", TestConfig.BURST, TestConfig.DAILY)
                .customer("acme", "free", TestConfig.ACME_KEY)
                .rule(RefusedRequestFloodTest.PAYOUTS)
                .amounts(AmountLimitTest.TRANSFER_AMOUNT);
        try (Fixture fixture = Fixture.with(config)
                .store(clock -> new ForwardingStore(InMemoryStore.builder().clock(clock).build()) {
                    @Override
                    protected void before(String operation) {
                        if (operation.equals("add")) {
                            throw new IllegalArgumentException("a store bug");
                        }
                    }
                })
                .application(app -> app.register(TestResources.Payouts.class))
                .start()) {
            RawHttp.Answer declined = RawHttp.postJson(fixture.server.port(), "/api/v1/payouts/declined",
                    "{\"currency\":\"EUR\",\"amountMinor\":12500}", "X-API-Key", TestConfig.ACME_KEY);

            assertThat(declined.status()).isEqualTo(409);
            assertThat(declined.body()).isEqualTo("declined");
            assertThat(declined.header("RateLimit"))
                    .isEqualTo("\"free-burst\";r=19;t=1, \"free-daily\";r=999;t=43200");
            assertThat(fixture.service.admin().amountStanding(Customer.of("acme", "free"), "transfer-amount", "EUR")
                    .get(0).remaining()).as("the failed refund gave nothing back").isEqualTo(1_000_000 - 12_500);
        }
    }
}
