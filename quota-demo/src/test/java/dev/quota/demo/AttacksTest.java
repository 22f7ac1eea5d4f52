package dev.quota.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Customer;
import dev.quota.core.LimitStatus;
import dev.quota.core.QuotaConfig;
import dev.quota.core.QuotaService;
import dev.quota.core.Rule;
import dev.quota.testkit.RawHttp;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The demo bank attacked over HTTP, with the bundled plans on a frozen clock: floods of transfers
 * that are refused anyway, other spellings of a rule's path, huge and odd inputs, and reading other
 * customers' activity off the limit every customer shares. Each attack is answered as the library
 * promises: limited, counted, a clear 4xx, never a 500.
 */
class AttacksTest {

    static final String FREE = "demo-free-key";
    static final String ENTERPRISE = "demo-enterprise-key";
    static final Customer ACME = Customer.of("ACME-FREE", "free");

    static RunningDemo demo;

    @BeforeAll
    static void start() {
        demo = RunningDemo.start();
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

    private static RawHttp.Answer transfer(String key, String from, String to, String amount, String currency) {
        return transfer(demo, "/api/v1/transfers", key, "{\"from\":\"" + from + "\",\"to\":\"" + to + "\",\"amount\":\""
                + amount + "\",\"currency\":\"" + currency + "\"}");
    }

    private static RawHttp.Answer transfer(RunningDemo on, String path, String key, String json) {
        String[] headers = key == null ? new String[] {"Content-Type", "application/json"}
                : new String[] {"Content-Type", "application/json", "X-API-Key", key};
        return RawHttp.send(on.api.getPort(), "POST", path, json.getBytes(StandardCharsets.UTF_8), headers);
    }

    /** Where ACME-FREE stands: policy to tokens left. */
    private static Map<String, Long> standing() {
        Map<String, Long> remaining = new LinkedHashMap<>();
        for (LimitStatus status : service().admin().standing(ACME)) {
            remaining.put(status.policy(), status.remaining());
        }
        return remaining;
    }

    private static QuotaService service() {
        return demo.app.services().get(0);
    }

    @Test
    void floodOfTransfersOverTheDailyAmount_is422UntilTheBurstIsSpent_then429NamingTheBurst() {
        for (int i = 0; i < 20; i++) {
            RawHttp.Answer refused = transfer(FREE, "ACC-1001", "ACC-2001", "20000.00", "EUR");
            assertThat(refused.status()).as("transfer %d of 20,000.00", i + 1).isEqualTo(422);
            assertThat(refused.body()).contains("\"type\":\"urn:quota:problem:exceeds-limit\"");
        }

        RawHttp.Answer flooded = transfer(FREE, "ACC-1001", "ACC-2001", "20000.00", "EUR");

        assertThat(flooded.status()).isEqualTo(429);
        assertThat(flooded.body()).contains("\"limit\":\"free-burst\"");
        assertThat(standing()).containsEntry("free-burst", 0L).containsEntry("free-hourly", 480L)
                .containsEntry("free-daily", 1980L).containsEntry("transfers-per-minute", 10L);
    }

    @Test
    void floodPastTheTransfersRule_is429NamingTheRuleUntilTheBurstIsSpent_then429NamingTheBurst() {
        for (int i = 0; i < 10; i++) {
            assertThat(transfer(FREE, "ACC-1001", "ACC-2001", "1.00", "EUR").status()).isEqualTo(201);
        }
        for (int i = 0; i < 10; i++) {
            RawHttp.Answer refused = transfer(FREE, "ACC-1001", "ACC-2001", "1.00", "EUR");
            assertThat(refused.status()).as("transfer %d past the rule", i + 1).isEqualTo(429);
            assertThat(refused.body()).contains("\"limit\":\"transfers-per-minute\"");
        }

        RawHttp.Answer flooded = transfer(FREE, "ACC-1001", "ACC-2001", "1.00", "EUR");

        assertThat(flooded.status()).isEqualTo(429);
        assertThat(flooded.body()).contains("\"limit\":\"free-burst\"");
        assertThat(standing()).containsEntry("free-burst", 0L).containsEntry("free-daily", 1980L)
                .containsEntry("transfers-per-minute", 0L);
    }

    @Test
    void floodOfTransfersFromAnothersAccount_is403UntilTheBurstIsSpent_then429_andTakesNoTransferNorAmount() {
        for (int i = 0; i < 20; i++) {
            RawHttp.Answer refused = transfer(FREE, "ACC-2001", "ACC-1001", "1.00", "USD");
            assertThat(refused.status()).as("transfer %d from GLOBEX's account", i + 1).isEqualTo(403);
        }

        RawHttp.Answer flooded = transfer(FREE, "ACC-2001", "ACC-1001", "1.00", "USD");

        assertThat(flooded.status()).isEqualTo(429);
        assertThat(flooded.body()).contains("\"limit\":\"free-burst\"");
        assertThat(standing()).containsEntry("free-burst", 0L).containsEntry("free-daily", 1980L)
                .containsEntry("transfers-per-minute", 10L);
        assertThat(service().admin().amountStanding(ACME, "transfer-amount", "USD").get(0).remaining())
                .isEqualTo(1_000_000);
    }

    @Test
    void floodOfAnonymousTransfers_is401UntilTheAnonymousBurstIsSpent_then429() {
        for (int i = 0; i < 10; i++) {
            RawHttp.Answer refused = transfer(null, "ACC-1001", "ACC-2001", "1.00", "EUR");
            assertThat(refused.status()).as("anonymous transfer %d", i + 1).isEqualTo(401);
        }

        RawHttp.Answer flooded = transfer(null, "ACC-1001", "ACC-2001", "1.00", "EUR");

        assertThat(flooded.status()).isEqualTo(429);
        assertThat(flooded.body()).contains("\"limit\":\"anonymous-burst\"");
    }

    @Test
    void otherSpellingsOfTheTransfersPath_areServedWithTheRuleOrNotAtAll() {
        List<String> variants = List.of("/api/v1/transfers", "/api/v1/transfers/", "//api/v1/transfers",
                "/api/v1//transfers", "/api/v1/%74ransfers", "/api/v1/transfers;x=1", "/api;v=2/v1/transfers",
                "/api/v1/./transfers", "/api/v1/x/../transfers", "/API/v1/transfers", "/api/v1/Transfers",
                "/api/v1/transfers%2F", "/api/v1%2Ftransfers", "/api/v1/transfers%00", "/api/v1/transfers/..;/",
                "/api/v1/transfers?x=1");
        String json = "{\"from\":\"ACC-4001\",\"to\":\"ACC-1001\",\"amount\":\"1.00\",\"currency\":\"EUR\"}";
        int served = 0;
        StringBuilder report = new StringBuilder("demo path variants:");
        for (String path : variants) {
            RawHttp.Answer answer = transfer(demo, path, ENTERPRISE, json);
            report.append(' ').append(path).append('=').append(answer.status());
            assertThat(answer.status()).as("POST %s", path).isIn(201, 400, 404, 405);
            if (answer.status() == 201) {
                assertThat(answer.header("RateLimit-Policy")).as("POST %s", path).contains("\"transfers-per-minute\"");
                served++;
            }
        }
        System.out.println(report);

        Customer initech = Customer.of("INITECH-ENT", "enterprise");
        long left = service().admin().standing(initech).stream().filter(s -> s.policy().equals("transfers-per-minute"))
                .mapToLong(LimitStatus::remaining).findFirst().orElseThrow();
        assertThat(served).isGreaterThan(1);
        assertThat(left).as("every served spelling was counted on the rule").isEqualTo(10 - served);
    }

    @Test
    void tenMegabyteBody_is400_neverA500() {
        String json = "{\"from\":\"ACC-1001\",\"to\":\"ACC-2001\",\"amount\":\"1.00\",\"currency\":\"EUR\",\"memo\":\""
                + "m".repeat(10 * 1024 * 1024) + "\"}";

        RawHttp.Answer answer = transfer(demo, "/api/v1/transfers", FREE, json);

        assertThat(answer.status()).isEqualTo(400);
        assertThat(answer.header("Content-Type")).startsWith("application/problem+json");
        assertThat(answer.body()).contains("must be at most 16384 bytes").hasSizeLessThan(1_000);
    }

    @Test
    void amountOfLongMaxValueMinorUnits_is400_andTheLargestAllowedAmount_is422() {
        RawHttp.Answer huge = transfer(FREE, "ACC-1001", "ACC-2001", "92233720368547758.07", "EUR");
        RawHttp.Answer largest = transfer(FREE, "ACC-1001", "ACC-2001", "1000000000.00", "EUR");

        assertThat(huge.status()).isEqualTo(400);
        assertThat(huge.body()).contains("must be at most 1000000000.00");
        assertThat(largest.status()).isEqualTo(422);
        assertThat(largest.body()).contains("\"type\":\"urn:quota:problem:exceeds-limit\"")
                .contains("\"limit\":\"transfer-amount-daily\"");
        assertThat(largest.header("Retry-After")).isNull();
    }

    @Test
    void currencyOfTenThousandCharacters_is400_withoutEchoingIt() {
        RawHttp.Answer answer = transfer(FREE, "ACC-1001", "ACC-2001", "1.00", "E".repeat(10_000));

        assertThat(answer.status()).isEqualTo(400);
        assertThat(answer.body()).contains("must be one of EUR, GBP, USD").doesNotContain("EEEE")
                .hasSizeLessThan(1_000);
    }

    @Test
    void nulBytesInHeaders_are4xx_neverA500() {
        byte[] json = "{\"from\":\"ACC-1001\",\"to\":\"ACC-2001\",\"amount\":\"1.00\",\"currency\":\"EUR\"}"
                .getBytes(StandardCharsets.UTF_8);
        String[][] headerSets = {
                {"Content-Type", "application/json", "X-API-Key", FREE + "\0"},
                {"Content-Type", "application/json\0", "X-API-Key", FREE},
                {"Content-Type", "application/json", "X-API-Key", FREE, "Host", "127.0.0.1\0"},
        };
        StringBuilder report = new StringBuilder("demo, NUL in headers:");
        for (String[] headers : headerSets) {
            RawHttp.Answer answer = RawHttp.send(demo.api.getPort(), "POST", "/api/v1/transfers", json, headers);
            report.append(' ').append(answer.status());
            assertThat(answer.status()).as("%s", List.of(headers).toString().replace("\0", "\\0")).isBetween(400, 499);
            assertThat(answer.body()).doesNotContain("Exception").doesNotContain("\0");
        }
        System.out.println(report);
    }

    @Test
    void transferHeaders_neverListTheLimitAllCustomersShare() {
        RawHttp.Answer admitted = transfer(FREE, "ACC-1001", "ACC-2001", "1.00", "EUR");

        assertThat(admitted.status()).isEqualTo(201);
        assertThat(admitted.header("RateLimit-Policy")).contains("\"transfers-per-minute\"")
                .doesNotContain("transfers-global").doesNotContain("transfer-amount");
        assertThat(admitted.header("RateLimit")).doesNotContain("transfers-global");
    }

    @Test
    void spentSharedLimit_is429NamingIt_withoutItsRemainingTokens() {
        QuotaConfig bundled = Configs.bundled();
        Rule transfers = bundled.rules().get("transfers");
        Rule tight = Rule.builder(transfers.name()).matches(transfers.matches()).cost(transfers.cost())
                .perCustomer(transfers.perCustomer())
                .shared(List.of(new dev.quota.core.Limit("global", 2,
                        dev.quota.core.Refill.greedy(2, Duration.ofMinutes(1)))))
                .onStoreFailure(transfers.onStoreFailure()).mode(transfers.mode()).build();
        try (RunningDemo small = RunningDemo.start(bundled.toBuilder().rule(tight).build(), null, null,
                Duration.ofSeconds(5))) {
            String json = "{\"from\":\"ACC-1001\",\"to\":\"ACC-2001\",\"amount\":\"1.00\",\"currency\":\"EUR\"}";
            String enterprise = "{\"from\":\"ACC-4001\",\"to\":\"ACC-1001\",\"amount\":\"1.00\",\"currency\":\"EUR\"}";
            assertThat(transfer(small, "/api/v1/transfers", FREE, json).status()).isEqualTo(201);
            assertThat(transfer(small, "/api/v1/transfers", ENTERPRISE, enterprise).status()).isEqualTo(201);

            RawHttp.Answer refused = transfer(small, "/api/v1/transfers", FREE, json);

            assertThat(refused.status()).isEqualTo(429);
            assertThat(refused.body()).contains("\"limit\":\"transfers-global\"").doesNotContain("\"remaining\"");
            assertThat(refused.header("RateLimit-Policy")).doesNotContain("transfers-global");
            assertThat(refused.header("RateLimit")).doesNotContain("transfers-global");
        }
    }
}
