package dev.quota.jaxrs.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quota.core.AllowList;
import dev.quota.core.Concurrency;
import dev.quota.core.Customer;
import dev.quota.core.Limit;
import dev.quota.core.QuotaDecision;
import dev.quota.core.Refill;
import dev.quota.core.Rule;
import dev.quota.core.TokenLeasing;
import dev.quota.core.net.Cidr;
import dev.quota.jaxrs.Fixture;
import dev.quota.jaxrs.TestConfig;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The admin API: standing, reset with an audit line, config summary, all behind a bearer token. */
class QuotaAdminResourceTest {

    private static final String TOKEN = "admin-token-0123456789abcdef-GHIJKL";
    private static final String BEARER = "Bearer " + TOKEN;

    private Fixture fixture;

    @BeforeEach
    void start() {
        TestConfig config = TestConfig.standard()
                .rule(Rule.builder("export").cost(10)
                        .perCustomer(List.of(new Limit("hourly", 5, Refill.greedy(5, Duration.ofHours(1)))))
                        .concurrency(new Concurrency(2, Duration.ofMinutes(10))).build())
                .allow(new AllowList(Set.of("secret-partner"), Set.of("ab".repeat(32)), List.of(Cidr.parse("10.0.0.0/8"))));
        fixture = Fixture.with(config).admin(TOKEN).start();
    }

    @AfterEach
    void stop() {
        fixture.close();
    }

    private HttpResponse<String> acme() {
        return fixture.server.get("/api/v1/accounts/1", "X-API-Key", TestConfig.ACME_KEY);
    }

    @Test
    void standing_showsEveryLimitOfTheCustomer_withoutTakingAnything() {
        for (int i = 0; i < 3; i++) {
            acme();
        }

        HttpResponse<String> first = fixture.server.get("/admin/customers/acme", "Authorization", BEARER);
        HttpResponse<String> second = fixture.server.get("/admin/customers/acme", "Authorization", BEARER);

        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.headers().firstValue("Content-Type")).hasValue("application/json");
        assertThat(first.headers().firstValue("RateLimit")).isEmpty();
        assertThat(first.body()).isEqualTo("{\"customer\":\"acme\",\"plan\":\"free\",\"multiplier\":1.0,"
                + "\"configVersion\":1,\"limits\":["
                + "{\"policy\":\"free-burst\",\"capacity\":20,"
                + "\"refill\":{\"type\":\"greedy\",\"tokens\":10,\"period\":\"PT1S\"},"
                + "\"remaining\":17,\"resetSeconds\":1,\"requests\":true},"
                + "{\"policy\":\"export-hourly\",\"capacity\":5,"
                + "\"refill\":{\"type\":\"greedy\",\"tokens\":5,\"period\":\"PT1H\"},"
                + "\"remaining\":5,\"resetSeconds\":0,\"requests\":true}],"
                + "\"inFlight\":[{\"policy\":\"export-in-flight\",\"held\":0,\"limit\":2,\"leaseTimeoutSeconds\":600,"
                + "\"oldestDeadline\":null}]}");
        assertThat(second.body()).isEqualTo(first.body());
    }

    @Test
    void reset_refillsTheCustomer_answers204_andWritesOneAuditLineWithoutSecrets() {
        for (int i = 0; i < 20; i++) {
            acme();
        }
        assertThat(acme().statusCode()).isEqualTo(429);

        String log = capturingStderr(() -> {
            HttpResponse<String> reset = fixture.server.send(fixture.server.request("/admin/customers/acme/buckets")
                    .header("Authorization", BEARER).DELETE());
            assertThat(reset.statusCode()).isEqualTo(204);
        });

        assertThat(acme().headers().firstValue("RateLimit")).hasValue("\"free-burst\";r=19;t=1");
        assertThat(log).contains("dev.quota.audit").contains("action=reset-buckets customer=acme plan=free"
                + " configVersion=1 outcome=ok client=198.51.100.1");
        assertThat(log).doesNotContain(TOKEN).doesNotContain(TestConfig.ACME_KEY);
    }

    @Test
    void leases_areShownHeldOfLimit_surviveABucketReset_andAreFreedOnlyWithTheConfirmation_audited() {
        Customer acme = fixture.service.customerForApiKey(TestConfig.ACME_KEY);
        QuotaDecision first = fixture.service.decide(acme, "export");
        fixture.clock.advance(Duration.ofSeconds(5));
        fixture.service.decide(acme, "export");
        assertThat(fixture.service.decide(acme, "export").violated().policy()).isEqualTo("export-in-flight");

        assertThat(fixture.server.get("/admin/customers/acme", "Authorization", BEARER).body())
                .endsWith("\"inFlight\":[{\"policy\":\"export-in-flight\",\"held\":2,\"limit\":2,"
                        + "\"leaseTimeoutSeconds\":600,\"oldestDeadline\":\""
                        + TestConfig.NOON.plus(Duration.ofMinutes(10)) + "\"}]}");
        assertThat(fixture.server.send(fixture.server.request("/admin/customers/acme/buckets")
                .header("Authorization", BEARER).DELETE()).statusCode()).isEqualTo(204);
        assertThat(fixture.service.decide(acme, "export").allowed()).as("a bucket reset leaves leases").isFalse();

        String log = capturingStderr(() -> {
            HttpResponse<String> unconfirmed = fixture.server.send(fixture.server.request("/admin/customers/acme/leases")
                    .header("Authorization", BEARER).DELETE());
            assertThat(unconfirmed.statusCode()).isEqualTo(400);
            assertThat(unconfirmed.body()).startsWith("{\"type\":\"urn:quota:problem:confirmation-required\"")
                    .contains("?confirm=may-exceed-in-flight-limit");
        });
        assertThat(log).contains("action=release-leases customer=acme plan=free configVersion=1"
                + " outcome=not-confirmed client=198.51.100.1");
        assertThat(fixture.service.decide(acme, "export").allowed()).as("nothing freed unconfirmed").isFalse();

        String released = capturingStderr(() -> {
            HttpResponse<String> release = fixture.server.send(fixture.server.request(
                    "/admin/customers/acme/leases?confirm=may-exceed-in-flight-limit").header("Authorization", BEARER)
                    .DELETE());
            assertThat(release.statusCode()).isEqualTo(200);
            assertThat(release.body()).startsWith("{\"customer\":\"acme\",\"released\":[{\"policy\":"
                    + "\"export-in-flight\",\"held\":2,\"limit\":2,");
        });
        assertThat(released).contains("dev.quota.audit").contains("action=release-leases customer=acme plan=free"
                + " configVersion=1 released=export-in-flight:2/2 outcome=ok client=198.51.100.1");

        fixture.clock.advance(Duration.ofSeconds(1));
        assertThat(fixture.service.decide(acme, "export").allowed()).isTrue();
        assertThat(fixture.service.decide(acme, "export").allowed()).isTrue();
        fixture.service.release(first);
        assertThat(fixture.service.decide(acme, "export").allowed())
                .as("a released request's late give-back frees none of the new leases").isFalse();
    }

    @Test
    void unknownCustomer_is404Problem_withoutEchoingTheId() {
        HttpResponse<String> response = fixture.server.get("/admin/customers/%3Cscript%3E", "Authorization", BEARER);

        assertThat(response.statusCode()).isEqualTo(404);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(response.body()).isEqualTo("{\"type\":\"urn:quota:problem:unknown-customer\",\"title\":\"Not Found\","
                + "\"status\":404,\"detail\":\"No customer with this id in config version 1.\"}");
    }

    @Test
    void config_showsTheServicesLeasingSettings_andNoPlanOrRuleLeasedWhenTheServiceLeasesNone() {
        String tuned = AdminDocuments.config(fixture.service.config(),
                TokenLeasing.builder().hotRate(20).leaseTime(Duration.ofSeconds(2)).fleetFraction(0.25).maxKeys(500)
                        .build(), fixture.service.admin().store());
        String off = AdminDocuments.config(fixture.service.config(), TokenLeasing.OFF, fixture.service.admin().store());

        assertThat(tuned).contains("\"leasing\":\"on\",\"tokenLeasing\":{\"enabled\":true,\"hotRate\":20,"
                        + "\"leaseTime\":\"PT2S\",\"fleetFraction\":0.25,\"maxKeys\":500},")
                .contains("{\"name\":\"free\",\"mode\":\"enforce\",\"leasing\":\"on\",");
        assertThat(off).contains("\"tokenLeasing\":{\"enabled\":false,")
                .contains("{\"name\":\"free\",\"mode\":\"enforce\",\"leasing\":\"off\",")
                .contains("{\"name\":\"export\",\"matches\":[],\"cost\":10,\"mode\":\"enforce\",\"leasing\":\"off\",")
                .doesNotContain("\"leasing\":\"on\",\"onStoreFailure\"");
    }

    @Test
    void config_summarisesPlansRulesAndLimits_withoutKeyHashesOrAllowListedIds() {
        HttpResponse<String> response = fixture.server.get("/admin/config", "Authorization", BEARER);

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body())
                .startsWith("{\"version\":1,\"enabled\":true,\"mode\":\"enforce\",\"leasing\":\"on\","
                        + "\"tokenLeasing\":{\"enabled\":true,\"hotRate\":50,\"leaseTime\":\"PT0.5S\","
                        + "\"fleetFraction\":0.1,\"maxKeys\":10000},"
                        + "\"identity\":{\"header\":\"X-API-Key\"")
                .contains("{\"name\":\"free\",\"mode\":\"enforce\",\"leasing\":\"on\",\"onStoreFailure\":\"closed\","
                        + "\"limits\":["
                        + "{\"name\":\"burst\",\"capacity\":20,"
                        + "\"refill\":{\"type\":\"greedy\",\"tokens\":10,\"period\":\"PT1S\"},\"windowSeconds\":2}],"
                        + "\"concurrency\":null}")
                .contains("\"concurrency\":{\"limit\":2,\"leaseTimeout\":\"PT10M\"}")
                .contains("{\"name\":\"export\",\"matches\":[],\"cost\":10,\"mode\":\"enforce\",\"leasing\":\"on\","
                        + "\"perCustomer\":[")
                .contains("\"customers\":1,\"apiKeys\":1,\"allow\":{\"customers\":1,\"apiKeys\":1,"
                        + "\"cidrs\":[\"10.0.0.0/8\"]}")
                .endsWith("\"warnings\":[],\"store\":{\"describe\":\"in-JVM buckets (this instance only)\","
                        + "\"breaker\":\"none\",\"outage\":false,"
                        + "\"fallbackDecisions\":{\"local\":0,\"open\":0,\"closed\":0,\"shed\":0}}}")
                .doesNotContain("secret-partner")
                .doesNotContain("abab")
                .doesNotContain(dev.quota.core.config.ApiKeys.sha256Hex(TestConfig.ACME_KEY));
    }

    @Test
    void topCustomers_ranksThisInstancesRefusalsAndSpending_andNamesItsScope() {
        for (int i = 0; i < 22; i++) {
            acme(); // 20 admitted, 2 refused
        }
        for (int i = 0; i < 6; i++) {
            fixture.server.get("/api/v1/accounts/1"); // anonymous: 5 admitted, 1 refused
        }

        HttpResponse<String> response = fixture.server.get("/admin/top-customers", "Authorization", BEARER);

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
        assertThat(response.body()).isEqualTo("{\"scope\":\"instance\",\"since\":\"2025-03-10T11:55:00Z\","
                + "\"until\":\"2025-03-10T12:00:00Z\",\"byRefusals\":["
                + "{\"rank\":1,\"customer\":\"acme\",\"kind\":\"account\",\"count\":2,\"atLeast\":2},"
                + "{\"rank\":2,\"customer\":\"ip:127.0.0.1\",\"kind\":\"address\",\"count\":1,\"atLeast\":1}],"
                + "\"bySpending\":["
                + "{\"rank\":1,\"customer\":\"acme\",\"kind\":\"account\",\"count\":20,\"atLeast\":20},"
                + "{\"rank\":2,\"customer\":\"ip:127.0.0.1\",\"kind\":\"address\",\"count\":5,\"atLeast\":5}]}");
    }

    @Test
    void topCustomers_withoutToken_is401() {
        HttpResponse<String> response = fixture.server.get("/admin/top-customers");

        assertThat(response.statusCode()).isEqualTo(401);
        assertThat(response.body()).contains("\"type\":\"urn:quota:problem:admin-token-required\"");
    }

    @Test
    void missingOrWrongToken_is401Problem_andNothingIsReset() {
        for (int i = 0; i < 20; i++) {
            acme();
        }
        String wrongLength = "Bearer x";
        String wrongSameLength = "Bearer " + TOKEN.substring(0, TOKEN.length() - 1) + "X";

        // five refusals: as many as one address gets before it is throttled
        for (String[] headers : new String[][] {{"Accept", "*/*"}, {"Authorization", wrongLength},
                {"Authorization", wrongSameLength}, {"Authorization", TOKEN}, {"Authorization", "Basic " + TOKEN}}) {
            HttpResponse<String> response = fixture.server.send(fixture.server.request("/admin/customers/acme/buckets")
                    .headers(headers).DELETE());
            assertThat(response.statusCode()).as(String.join(": ", headers)).isEqualTo(401);
            assertThat(response.headers().firstValue("WWW-Authenticate")).hasValue("Bearer realm=\"quota-admin\"");
            assertThat(response.body()).contains("\"type\":\"urn:quota:problem:admin-token-required\"");
        }
        assertThat(fixture.server.get("/admin/config", Fixture.PEER_HEADER, "198.51.100.2").statusCode())
                .isEqualTo(401);
        assertThat(fixture.server.get("/admin/customers/acme", "Authorization", wrongSameLength,
                Fixture.PEER_HEADER, "198.51.100.3").statusCode()).isEqualTo(401);

        assertThat(acme().statusCode()).isEqualTo(429);
    }

    @Test
    void bearerScheme_isCaseInsensitive() {
        assertThat(fixture.server.get("/admin/config", "Authorization", "bearer " + TOKEN).statusCode()).isEqualTo(200);
    }

    @Test
    void adminCalls_areNotCountedAgainstAnyQuota() {
        // the anonymous plan allows 5 per minute; the admin API is not limited by it
        for (int i = 0; i < 10; i++) {
            HttpResponse<String> response = fixture.server.get("/admin/config", "Authorization", BEARER);
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.headers().firstValue("RateLimit")).isEmpty();
        }
    }

    @Test
    void shortToken_isRefused_withItsLengthNotItsValue() {
        assertThatThrownBy(() -> QuotaAdminResource.builder(fixture.service, "secret"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("admin token must be 32 to 256 characters but was 6 characters long");
    }

    /** What broke: any 16 visible characters were a token, so "aaaaaaaaaaaaaaaa" opened the admin API. */
    @Test
    void weakTokenOfSixteenCharacters_isRefused() {
        assertThatThrownBy(() -> QuotaAdminResource.builder(fixture.service, "aaaaaaaaaaaaaaaa"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageNotContaining("aaaa");
        assertThatThrownBy(() -> QuotaAdminResource.builder(fixture.service, "a".repeat(40)))
                .hasMessage("admin token must have at least 10 different characters but has 1 (it is 40 characters"
                        + " long)");
    }

    @Test
    void auditValue_quotesAndEscapesWhatIsNotPlain() {
        assertThat(AdminAudit.value("acme")).isEqualTo("acme");
        assertThat(AdminAudit.value("a b=\"c\"\n")).isEqualTo("\"a b=\\\"c\\\"\\x0a\"");
    }

    /** Runs {@code action} with System.err captured; slf4j-simple writes there, looked up per line. */
    private static String capturingStderr(Runnable action) {
        PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            action.run();
        } finally {
            System.setErr(original);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }
}
