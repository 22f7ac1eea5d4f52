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
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Attack: spelling a rule-bound endpoint's path another way (a trailing slash, a double slash,
 * percent-encoding, matrix parameters, dot segments, another case) to reach it without its rule.
 * Every variant is either not served at all (404, 400) or served with its rule: counted on it and
 * advertised in {@code RateLimit-Policy}.
 */
class PathVariantsTest {

    /** Bound by the config's match. */
    static final Rule TRANSFERS = Rule.builder("transfers").matches(List.of(RouteMatch.parse("POST /api/v1/transfers")))
            .perCustomer(List.of(new Limit("minute", 100, Refill.greedy(100, Duration.ofMinutes(1))))).build();

    /** Bound by {@code @Quota("export")}. */
    static final Rule EXPORT = Rule.builder("export")
            .perCustomer(List.of(new Limit("hourly", 100, Refill.greedy(100, Duration.ofHours(1))))).build();

    private final Fixture fixture = Fixture.start(new TestConfig()
            .plan("free", new Limit("burst", 1000, Refill.greedy(1000, Duration.ofSeconds(1))))
            .customer("acme", "free", TestConfig.ACME_KEY)
            .rule(TRANSFERS).rule(EXPORT));

    @AfterEach
    void stop() {
        fixture.close();
    }

    @Test
    void transferPathVariants_areServedWithTheRuleOrNotAtAll() {
        List<String> variants = List.of("/api/v1/transfers", "/api/v1/transfers/", "//api/v1/transfers",
                "/api/v1//transfers", "/api//v1/transfers/", "/api/v1/%74ransfers", "/api/v1/transfer%73",
                "/%61pi/v1/transfers", "/api/v1/transfers;x=1", "/api;v=2/v1/transfers", "/api/v1/transfers/;x=1",
                "/api/v1/./transfers", "/api/v1/x/../transfers", "/api/v1/transfers/.", "/api/v1/%2e/transfers",
                "/API/v1/transfers", "/api/v1/Transfers", "/api/v1/TRANSFERS", "/api/v1/transfers%2F",
                "/api/v1%2Ftransfers", "/api/v1/transfers%00", "/api/v1/transfers?x=1", "/api/v1/transfers#x",
                "/api/v1/transfers/..;/transfers", "http://127.0.0.1/api/v1/transfers");
        int served = servedWithRule("POST", variants, "transfers-minute");

        assertThat(served).as("variants served").isGreaterThan(3);
        assertThat(remaining("transfers-minute")).as("every served variant was counted on the rule")
                .isEqualTo(100 - served);
    }

    @Test
    void exportPathVariants_areServedWithTheRuleOrNotAtAll() {
        List<String> variants = List.of("/api/v1/accounts/7/export", "/api/v1/accounts/7/export/",
                "/api/v1/accounts//7/export", "/api/v1/accounts/7//export", "/api/v1/accounts/7/%65xport",
                "/api/v1/accounts/%37/export", "/api/v1/accounts/7;a=b/export", "/api/v1/accounts/7/export;a=b",
                "/api/v1/accounts/7/./export", "/api/v1/accounts/7/x/../export", "/api/v1/accounts/7/EXPORT",
                "/api/v1/Accounts/7/export", "/api/v1/accounts/7/export%2F", "/api/v1/accounts/007/export");
        int served = servedWithRule("GET", variants, "export-hourly");

        assertThat(served).as("variants served").isGreaterThan(3);
        assertThat(remaining("export-hourly")).isEqualTo(100 - served);
    }

    /** Sends each variant; each is refused by the runtime or served with the rule. The number served. */
    private int servedWithRule(String method, List<String> variants, String policy) {
        int served = 0;
        StringBuilder report = new StringBuilder("path variants, " + method + ":");
        for (String path : variants) {
            RawHttp.Answer answer = RawHttp.send(fixture.server.port(), method, path,
                    method.equals("POST") ? new byte[0] : null, "X-API-Key", TestConfig.ACME_KEY);
            report.append(' ').append(path).append('=').append(answer.status());
            assertThat(answer.status()).as("%s %s", method, path).isIn(200, 400, 404, 405);
            if (answer.status() == 200) {
                assertThat(answer.header("RateLimit-Policy")).as("%s %s, served", method, path)
                        .contains("\"" + policy + "\"");
                served++;
            }
        }
        System.out.println(report);
        return served;
    }

    private long remaining(String policy) {
        return fixture.service.admin().standing(Customer.of("acme", "free")).stream()
                .filter(s -> s.policy().equals(policy)).mapToLong(LimitStatus::remaining).findFirst().orElseThrow();
    }
}
