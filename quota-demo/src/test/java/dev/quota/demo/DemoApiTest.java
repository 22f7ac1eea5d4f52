package dev.quota.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.quota.testkit.Await;
import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The demo API in this JVM on a free port, over a real redis-server, with the bundled plans and a
 * frozen clock: nothing refills while a test runs, so every count is exact.
 */
class DemoApiTest {

    static final String KEY = "X-API-Key";
    static final String FREE = "demo-free-key";
    static final String ENTERPRISE = "demo-enterprise-key";

    static RunningDemo demo;
    static URI api;

    @BeforeAll
    static void start() {
        demo = RunningDemo.start();
        api = demo.api;
    }

    @AfterAll
    static void stop() {
        if (demo != null) {
            demo.close();
        }
    }

    @BeforeEach
    void nextDay() {
        demo.nextDay();
    }

    @Test
    void getAccount_withFreeKey_returns200WithRateLimitHeaders() {
        HttpResponse<String> response = Http.get(api.resolve("accounts/ACC-1001"), KEY, FREE);

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(Http.header(response, "Content-Type")).isEqualTo("application/json");
        JsonNode account = Http.json(response);
        assertThat(account.get("id").asText()).isEqualTo("ACC-1001");
        assertThat(account.get("owner").asText()).isEqualTo("ACME-FREE");
        assertThat(account.get("balanceMinor").asLong()).isEqualTo(1_234_567);
        assertThat(account.get("currency").asText()).isEqualTo("EUR");
        assertThat(Http.header(response, "RateLimit-Policy"))
                .contains("\"free-burst\";q=20;w=2", "\"free-hourly\";q=500;w=3600", "\"free-daily\";q=2000;w=86400");
        assertThat(Http.header(response, "RateLimit"))
                .contains("\"free-burst\";r=19;", "\"free-hourly\";r=499;", "\"free-daily\";r=1999;");
        assertThat(Http.header(response, "X-RateLimit-Limit")).isEqualTo("20");
        assertThat(Http.header(response, "X-RateLimit-Remaining")).isEqualTo("19");
    }

    @Test
    void freeKey_afterItsBurstOf20_gets429WithRetryAfter() {
        for (int i = 0; i < 20; i++) {
            assertThat(Http.get(api.resolve("accounts/ACC-1001"), KEY, FREE).statusCode()).as("request %d", i + 1)
                    .isEqualTo(200);
        }

        HttpResponse<String> rejected = Http.get(api.resolve("accounts/ACC-1001"), KEY, FREE);

        assertThat(rejected.statusCode()).isEqualTo(429);
        assertThat(Http.header(rejected, "Content-Type")).startsWith("application/problem+json");
        // 10 tokens per second: the next one is 100 ms away, rounded up to a whole second
        assertThat(Http.header(rejected, "Retry-After")).isEqualTo("1");
        assertThat(Http.header(rejected, "RateLimit")).contains("\"free-burst\";r=0;");
        JsonNode problem = Http.json(rejected);
        assertThat(problem.get("status").asInt()).isEqualTo(429);
        assertThat(problem.get("limit").asText()).isEqualTo("free-burst");
        assertThat(problem.get("remaining").asLong()).isZero();
    }

    @Test
    void noKey_isLimitedAsAnonymousByClientAddress() {
        HttpResponse<String> response = Http.get(api.resolve("quota"));

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(Http.header(response, "RateLimit")).isEqualTo("\"anonymous-burst\";r=9;t=12");
        JsonNode standing = Http.json(response);
        assertThat(standing.get("customer").asText()).isEqualTo("ip:127.0.0.1");
        assertThat(standing.get("plan").asText()).isEqualTo("anonymous");
    }

    @Test
    void quota_returnsTheCallersStandingInEveryLimit() {
        Http.get(api.resolve("accounts/ACC-1001"), KEY, FREE);

        HttpResponse<String> response = Http.get(api.resolve("quota"), KEY, FREE);

        assertThat(response.statusCode()).isEqualTo(200);
        JsonNode standing = Http.json(response);
        assertThat(standing.get("customer").asText()).isEqualTo("ACME-FREE");
        assertThat(standing.get("plan").asText()).isEqualTo("free");
        assertThat(standing.get("multiplier").asDouble()).isEqualTo(1.0);
        Map<String, JsonNode> limits = new HashMap<>();
        standing.get("limits").forEach(limit -> limits.put(limit.get("policy").asText(), limit));
        assertThat(limits).containsOnlyKeys("free-burst", "free-hourly", "free-daily", "transfers-per-minute");
        // two requests so far, this one included
        assertLimit(limits.get("free-burst"), 20, 18);
        assertLimit(limits.get("free-hourly"), 500, 498);
        assertLimit(limits.get("free-daily"), 2000, 1998);
        assertLimit(limits.get("transfers-per-minute"), 10, 10);
        assertThat(limits.get("free-burst").get("resetSeconds").asLong()).isEqualTo(1);
        assertThat(limits.get("transfers-per-minute").get("resetSeconds").asLong()).isZero();
        // 09:00 UTC is 10:00 in Berlin: 14 hours to midnight
        assertThat(limits.get("free-daily").get("resetSeconds").asLong()).isEqualTo(14 * 3600);
    }

    @Test
    void quota_includesTodaysTransferAmountStandingPerCurrency() {
        assertThat(Http.postJson(api.resolve("transfers"),
                "{\"from\":\"ACC-1001\",\"to\":\"ACC-2001\",\"amount\":\"125.00\",\"currency\":\"EUR\"}", KEY, FREE)
                .statusCode()).isEqualTo(201);

        JsonNode amounts = Http.json(Http.get(api.resolve("quota"), KEY, FREE)).get("amounts");

        Map<String, JsonNode> byCurrency = new HashMap<>();
        amounts.forEach(amount -> byCurrency.put(amount.get("currency").asText(), amount));
        assertThat(byCurrency).containsOnlyKeys("EUR", "USD", "GBP");
        JsonNode eur = byCurrency.get("EUR");
        assertThat(eur.get("policy").asText()).isEqualTo("transfer-amount-daily");
        assertThat(eur.get("capacityMinor").asLong()).isEqualTo(1_000_000);
        assertThat(eur.get("remainingMinor").asLong()).isEqualTo(1_000_000 - 12_500);
        // 09:00 UTC is 10:00 in Berlin: the day's amount is back at midnight, 14 hours on
        assertThat(eur.get("resetSeconds").asLong()).isEqualTo(14 * 3600);
        assertThat(byCurrency.get("USD").get("remainingMinor").asLong()).isEqualTo(1_000_000);
        assertThat(byCurrency.get("GBP").get("remainingMinor").asLong()).isEqualTo(1_000_000);
    }

    @Test
    void quota_ofSav2001_showsThePlanDoubled() {
        JsonNode standing = Http.json(Http.get(api.resolve("quota"), KEY, "demo-sav2001-key"));

        assertThat(standing.get("plan").asText()).isEqualTo("pro");
        assertThat(standing.get("multiplier").asDouble()).isEqualTo(2.0);
        assertThat(standing.get("limits").findValuesAsText("policy")).contains("pro-burst");
        JsonNode burst = null;
        for (JsonNode limit : standing.get("limits")) {
            if (limit.get("policy").asText().equals("pro-burst")) {
                burst = limit;
            }
        }
        assertLimit(burst, 200, 199);
    }

    @Test
    void export_costs10TokensOfThePlan() {
        HttpResponse<String> before = Http.get(api.resolve("accounts/ACC-1001"), KEY, FREE);
        assertThat(Http.header(before, "RateLimit")).contains("\"free-burst\";r=19;");

        HttpResponse<String> export = Http.get(api.resolve("accounts/ACC-1001/export?format=csv"), KEY, FREE);

        assertThat(export.statusCode()).isEqualTo(200);
        assertThat(Http.header(export, "RateLimit")).contains("\"free-burst\";r=9;", "\"free-hourly\";r=489;");
        assertThat(Http.header(export, "Content-Type")).startsWith("text/csv");
        String[] lines = export.body().split("\r\n");
        assertThat(lines).hasSize(26);
        assertThat(lines[0]).isEqualTo("id,bookingDate,counterparty,amount,currency");
        assertThat(lines[1]).startsWith("ACC-1001-001,2025-01-").endsWith(",EUR");
    }

    @Test
    void export_asJson_isTheSameTransactions() {
        HttpResponse<String> export = Http.get(api.resolve("accounts/ACC-1002/export"), KEY, FREE);

        assertThat(export.statusCode()).isEqualTo(200);
        JsonNode transactions = Http.json(export);
        assertThat(transactions.size()).isEqualTo(25);
        assertThat(transactions.get(0).get("id").asText()).isEqualTo("ACC-1002-001");
        assertThat(transactions.get(0).get("currency").asText()).isEqualTo("USD");
    }

    @Test
    void export_withThreeExports_exhaustsTheFreeBurstOn3rd() {
        assertThat(Http.get(api.resolve("accounts/ACC-1001/export"), KEY, FREE).statusCode()).isEqualTo(200);
        assertThat(Http.get(api.resolve("accounts/ACC-1001/export"), KEY, FREE).statusCode()).isEqualTo(200);

        HttpResponse<String> third = Http.get(api.resolve("accounts/ACC-1001/export"), KEY, FREE);

        assertThat(third.statusCode()).isEqualTo(429);
        assertThat(Http.json(third).get("limit").asText()).isEqualTo("free-burst");
    }

    /** How many settles with {@code outcome} the demo's metrics count. */
    private static long settles(String outcome) {
        String prefix = "quota_settles_total{outcome=\"" + outcome + "\"} ";
        return Http.get(demo.management.resolve("metrics")).body().lines().filter(l -> l.startsWith(prefix))
                .mapToLong(l -> (long) Double.parseDouble(l.substring(prefix.length()))).sum();
    }

    /**
     * Waits until the demo's metrics count {@code count} settles with {@code outcome}. A statement is
     * settled once its response has been written, which may be just after the client read it.
     */
    private static void awaitSettles(String outcome, long count) {
        Await.until(Duration.ofSeconds(10), () -> settles(outcome) == count, () -> count + " settles " + outcome);
    }

    @Test
    void statement_of37Days_onTheFreePlansBurstOf20_isCutAfterExactly20Rows_andLeavesNoDebt() {
        long exact = settles("exact");

        HttpResponse<String> statement = Http.get(api.resolve("accounts/ACC-1001/statement?from=2025-01-02&to=2025-02-07"),
                KEY, FREE);

        assertThat(statement.statusCode()).isEqualTo(200);
        assertThat(Http.header(statement, "Content-Type")).startsWith("text/csv");
        String[] lines = statement.body().split("\r\n");
        assertThat(lines).hasSize(1 + 20); // the burst of 20: the estimate of 10 and 10 more, one row each
        assertThat(lines[0]).isEqualTo("date,closingBalance,currency");
        assertThat(lines[1]).startsWith("2025-01-02,").endsWith(",EUR");
        assertThat(lines[20]).startsWith("2025-01-21,");
        // the estimate, charged when it came in
        assertThat(Http.header(statement, "RateLimit")).contains("\"free-burst\";r=10;", "\"free-hourly\";r=490;");
        awaitSettles("exact", exact + 1);

        // no debt: the next token is there a tenth of a second later
        HttpResponse<String> empty = Http.get(api.resolve("accounts/ACC-1001"), KEY, FREE);
        assertThat(empty.statusCode()).isEqualTo(429);
        assertThat(Http.header(empty, "Retry-After")).isEqualTo("1");
        demo.clock.advance(Duration.ofMillis(100));

        HttpResponse<String> paid = Http.get(api.resolve("accounts/ACC-1001"), KEY, FREE);
        assertThat(paid.statusCode()).isEqualTo(200);
        assertThat(Http.header(paid, "RateLimit"))
                .contains("\"free-burst\";r=0;", "\"free-hourly\";r=479;", "\"free-daily\";r=1979;");
    }

    @Test
    void statementAsServerSentEvents_onTheFreePlansBurstOf20_sends20RowEvents_thenQuotaExhausted() {
        HttpResponse<String> events = Http.get(api.resolve("accounts/ACC-1001/statement?from=2025-01-02&to=2025-12-31"),
                KEY, FREE, "Accept", "text/event-stream");

        assertThat(events.statusCode()).isEqualTo(200);
        assertThat(Http.header(events, "Content-Type")).startsWith("text/event-stream");
        assertThat(events.body().split("event: row\n", -1)).hasSize(1 + 20);
        assertThat(events.body()).startsWith("event: row\ndata: 2025-01-02,")
                .endsWith("event: quota-exhausted\ndata: {\"rows\":20}\n\n");
    }

    @Test
    void statement_withDatesTheWrongWayRound_is400_andKeepsItsEstimate() {
        HttpResponse<String> refused = Http.get(api.resolve("accounts/ACC-1001/statement?from=2025-02-07&to=2025-01-02"),
                KEY, FREE);

        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(Http.header(refused, "Content-Type")).startsWith("application/problem+json");
        assertThat(Http.json(refused).get("errors").get(0).get("field").asText()).isEqualTo("to");
        HttpResponse<String> next = Http.get(api.resolve("accounts/ACC-1001"), KEY, FREE);
        assertThat(Http.header(next, "RateLimit")).contains("\"free-hourly\";r=489;");
    }

    @Test
    void transfer_valid_returns201WithTransferId() {
        HttpResponse<String> response = Http.postJson(api.resolve("transfers"),
                "{\"from\":\"ACC-1001\",\"to\":\"ACC-2001\",\"amount\":\"125.00\",\"currency\":\"EUR\"}", KEY, FREE);

        assertThat(response.statusCode()).isEqualTo(201);
        JsonNode transfer = Http.json(response);
        assertThat(transfer.get("id").asText()).matches("tr_[0-9a-f]{20}");
        assertThat(transfer.get("amount").asText()).isEqualTo("125.00");
        assertThat(Http.header(response, "Location")).endsWith("/api/v1/transfers/" + transfer.get("id").asText());
        assertThat(Http.header(response, "RateLimit")).contains("\"transfers-per-minute\";r=9;");
        HttpResponse<String> fetched = Http.get(URI.create(Http.header(response, "Location")), KEY, FREE);
        assertThat(fetched.statusCode()).isEqualTo(200);
        assertThat(Http.json(fetched)).isEqualTo(transfer);
        assertThat(Http.get(URI.create(Http.header(response, "Location")), KEY, ENTERPRISE).statusCode())
                .as("another customer's transfer").isEqualTo(404);
    }

    @Test
    void transfer_overTheDailyAmount_gets429NamingTheAmountLimit() {
        assertThat(transfer("9000.00", "EUR").statusCode()).isEqualTo(201);

        HttpResponse<String> rejected = transfer("1000.01", "EUR");

        assertThat(rejected.statusCode()).isEqualTo(429);
        assertThat(Http.header(rejected, "Content-Type")).startsWith("application/problem+json");
        // 09:00 UTC is 10:00 in Berlin: the day's amount comes back at midnight, 14 hours on
        assertThat(Http.header(rejected, "Retry-After")).isEqualTo(Long.toString(14 * 3600));
        JsonNode problem = Http.json(rejected);
        assertThat(problem.get("limit").asText()).isEqualTo("transfer-amount-daily");
        assertThat(problem.get("remaining").asLong()).isEqualTo(100_000);
        assertThat(problem.get("resetSeconds").asLong()).isEqualTo(14 * 3600);
        // nothing was taken by the rejected transfer: exactly 1000.00 still fits, and other currencies have their own
        assertThat(transfer("1000.00", "EUR").statusCode()).isEqualTo(201);
        assertThat(transfer("0.01", "EUR").statusCode()).isEqualTo(429);
        assertThat(transfer("10000.00", "USD").statusCode()).isEqualTo(201);
    }

    private static HttpResponse<String> transfer(String amount, String currency) {
        String from = currency.equals("USD") ? "ACC-4002" : "ACC-4001"; // a transfer is in its account's currency
        return Http.postJson(api.resolve("transfers"), "{\"from\":\"" + from + "\",\"to\":\"ACC-2001\",\"amount\":\""
                + amount + "\",\"currency\":\"" + currency + "\"}", KEY, ENTERPRISE);
    }

    private static void assertLimit(JsonNode limit, long capacity, long remaining) {
        assertThat(limit).isNotNull();
        assertThat(limit.get("capacity").asLong()).as(limit.get("policy").asText() + " capacity").isEqualTo(capacity);
        assertThat(limit.get("remaining").asLong()).as(limit.get("policy").asText() + " remaining")
                .isEqualTo(remaining);
    }
}
