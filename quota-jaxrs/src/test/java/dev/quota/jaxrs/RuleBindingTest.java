package dev.quota.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Limit;
import dev.quota.core.Refill;
import dev.quota.core.RouteMatch;
import dev.quota.core.Rule;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Rules bound by {@code @Quota} or by the config's {@code matches}, layered on the plan. */
class RuleBindingTest {

    /** Cost 10 on the plan, and one export per hour per customer. */
    static final Rule EXPORT = Rule.builder("export").cost(10)
            .perCustomer(List.of(new Limit("hourly", 1, Refill.interval(1, Duration.ofHours(1))))).build();

    /** Matched by path: two transfers per minute per customer, 100 per second for everyone. */
    static final Rule TRANSFERS = Rule.builder("transfers").matches(List.of(RouteMatch.parse("POST /api/v1/transfers")))
            .perCustomer(List.of(new Limit("minute", 2, Refill.greedy(2, Duration.ofMinutes(1)))))
            .shared(List.of(new Limit("all", 100, Refill.greedy(100, Duration.ofSeconds(1))))).build();

    /** Written with another parameter name and a trailing slash than the resource uses. */
    static final Rule STATEMENTS = Rule.builder("statements")
            .matches(List.of(RouteMatch.parse("GET /api/v1/accounts/{accountId}/statements/"))).cost(5).build();

    /** Would match the export endpoint by path, but its annotation names {@link #EXPORT}. */
    static final Rule EXPORT_BY_PATH = Rule.builder("export-by-path")
            .matches(List.of(RouteMatch.parse("GET /api/v1/accounts/{id}/export"))).cost(3).build();

    private final Fixture fixture = Fixture.start(TestConfig.standard()
            .rule(EXPORT).rule(TRANSFERS).rule(STATEMENTS).rule(EXPORT_BY_PATH));

    @AfterEach
    void stop() {
        fixture.close();
    }

    private HttpResponse<String> get(String path) {
        return fixture.server.get(path, "X-API-Key", TestConfig.ACME_KEY);
    }

    private HttpResponse<String> transfer() {
        return fixture.server.send(fixture.server.request("/api/v1/transfers")
                .header("X-API-Key", TestConfig.ACME_KEY).POST(HttpRequest.BodyPublishers.noBody()));
    }

    @Test
    void unlimitedClassAndMethod_areNeverCountedNorAnswered429() {
        for (int i = 0; i < 30; i++) {
            HttpResponse<String> health = fixture.server.get("/health", "X-API-Key", "not-a-known-key");
            HttpResponse<String> ping = get("/api/v1/accounts/ping");
            assertThat(health.statusCode()).isEqualTo(200);
            assertThat(ping.statusCode()).isEqualTo(200);
            assertThat(health.headers().map()).doesNotContainKeys("ratelimit", "ratelimit-policy");
            assertThat(ping.headers().map()).doesNotContainKeys("ratelimit", "ratelimit-policy");
        }
        // 30 pings took nothing from the burst of 20
        assertThat(get("/api/v1/accounts/1").headers().firstValue("RateLimit")).hasValue("\"free-burst\";r=19;t=1");
    }

    @Test
    void annotatedRule_takesItsCostFromThePlan_andOneFromItsOwnLimit() {
        HttpResponse<String> response = get("/api/v1/accounts/1/export");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(items(response, "RateLimit-Policy"))
                .containsExactlyInAnyOrder("\"free-burst\";q=20;w=2", "\"export-hourly\";q=1;w=3600");
        assertThat(items(response, "RateLimit"))
                .containsExactlyInAnyOrder("\"free-burst\";r=10;t=1", "\"export-hourly\";r=0;t=3600");
        // the tightest limit is the export's, with nothing left
        assertThat(response.headers().firstValue("X-RateLimit-Limit")).hasValue("1");
        assertThat(response.headers().firstValue("X-RateLimit-Remaining")).hasValue("0");
        assertThat(response.headers().firstValue("X-RateLimit-Reset")).hasValue("3600");
    }

    @Test
    void ruleLimitExhausted_is429NamingTheRulePolicy_andCostsThePlanOneRequest() {
        assertThat(get("/api/v1/accounts/1/export").statusCode()).isEqualTo(200);

        HttpResponse<String> rejected = get("/api/v1/accounts/1/export");

        assertThat(rejected.statusCode()).isEqualTo(429);
        assertThat(rejected.headers().firstValue("Retry-After")).hasValue("3600");
        assertThat(rejected.body()).contains("\"limit\":\"export-hourly\"", "\"remaining\":0",
                "\"retryAfterSeconds\":3600", "\"instance\":\"/api/v1/accounts/1/export\"");
        assertThat(rejected.body()).doesNotContain("resetSeconds");
        // 20 - 10 for the first export - 1 for the refused export (a request, not an export) - 1 for this one
        assertThat(get("/api/v1/accounts/1").headers().firstValue("RateLimit")).hasValue("\"free-burst\";r=8;t=2");
    }

    @Test
    void annotation_winsOverARuleMatchingThePath() {
        HttpResponse<String> response = get("/api/v1/accounts/1/export");

        assertThat(response.headers().firstValue("RateLimit-Policy").orElseThrow())
                .contains("export-hourly").doesNotContain("export-by-path");
        assertThat(items(response, "RateLimit")).contains("\"free-burst\";r=10;t=1");
    }

    @Test
    void configMatch_bindsTheRuleByMethodAndTemplate() {
        HttpResponse<String> first = transfer();
        transfer();
        HttpResponse<String> third = transfer();

        assertThat(first.statusCode()).isEqualTo(200);
        // the limit every customer shares is enforced, not advertised: its tokens tell of other customers
        assertThat(items(first, "RateLimit")).containsExactlyInAnyOrder("\"free-burst\";r=19;t=1",
                "\"transfers-minute\";r=1;t=30");
        assertThat(third.statusCode()).isEqualTo(429);
        assertThat(third.body()).contains("\"limit\":\"transfers-minute\"", "\"retryAfterSeconds\":30");
        assertThat(third.headers().firstValue("Retry-After")).hasValue("30");
    }

    @Test
    void configMatch_ignoresParameterNamesRegexesAndTrailingSlashes() {
        HttpResponse<String> response = get("/api/v1/accounts/1/statements");

        assertThat(response.statusCode()).isEqualTo(200);
        // cost 5, no limits of its own
        assertThat(response.headers().firstValue("RateLimit")).hasValue("\"free-burst\";r=15;t=1");
    }

    @Test
    void endpointWithoutRule_takesOneTokenFromThePlanOnly() {
        HttpResponse<String> response = get("/api/v1/accounts/1");

        assertThat(response.headers().firstValue("RateLimit")).hasValue("\"free-burst\";r=19;t=1");
    }

    @Test
    void reload_rebindsRulesMatchedByPath() {
        assertThat(items(transfer(), "RateLimit")).hasSize(2);

        fixture.service.reload(TestConfig.standard().rule(EXPORT).build().withVersion(0));
        HttpResponse<String> response = transfer();

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("RateLimit")).hasValue("\"free-burst\";r=18;t=1");
    }

    private static List<String> items(HttpResponse<String> response, String header) {
        return List.of(response.headers().firstValue(header).orElseThrow().split(", "));
    }
}
